import { randomUUID } from 'node:crypto';

/** A new client id, as Redisson's: a random UUID. */
export function newClientId(): string {
  return randomUUID();
}

/** Client ids become the first part of `<clientId>:<owner>` fields, so they must not contain ":". */
export const CLIENT_ID_PATTERN = /^[\w.-]{1,64}$/;

/**
 * Generates owner ids for holds that nobody named. They start with "#", which explicit owners may not,
 * so a generated id never equals a user's.
 */
export function ownerIdGenerator(): () => string {
  let next = 0;
  return () => `#${(++next).toString(36)}`;
}

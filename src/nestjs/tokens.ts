import { Inject } from '@nestjs/common';

/** The injection token of the application's `LockClient`: `@Inject(LOCK_CLIENT) client: LockClient`. */
export const LOCK_CLIENT: unique symbol = Symbol('rxlock:LockClient');

/** Injects the application's `LockClient` (`@InjectLockClient() client: LockClient`). */
export function InjectLockClient(): PropertyDecorator & ParameterDecorator {
  return Inject(LOCK_CLIENT);
}

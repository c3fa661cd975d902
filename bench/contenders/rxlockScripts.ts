import { randomUUID } from 'node:crypto';
import type * as AcquireScript from '../../src/primitives/lock/acquireScript.js';
import type * as LockKeys from '../../src/primitives/lock/lockKeys.js';
import type * as ReleaseScript from '../../src/primitives/lock/releaseScript.js';
import { dist } from '../rxlock.js';
import type { Contender } from './Contender.js';
import { scriptsWorker, type LockScripts } from './lockScripts.js';

const { lockAcquireScript } = (await import(`${dist}/primitives/lock/acquireScript.js`)) as typeof AcquireScript;
const { lockReleaseScript } = (await import(`${dist}/primitives/lock/releaseScript.js`)) as typeof ReleaseScript;
const { handOffChannel, lockKeys } = (await import(`${dist}/primitives/lock/lockKeys.js`)) as typeof LockKeys;

const LEASE_MS = 30_000;
const HANDOFF_MS = 100;

/** rxlock's lock scripts (of the build under test) with the keys and arguments `lock$` sends for an owner that never re-enters. */
export const RXLOCK_LOCK_SCRIPTS: LockScripts = {
  acquireLua: lockAcquireScript.lua,
  releaseLua: lockReleaseScript.lua,
  acquire: (key, field) => {
    const keys = lockKeys(key).acquireKeys;
    return [keys.length, ...keys, LEASE_MS, field, 'new+d', HANDOFF_MS];
  },
  release: (key, field) => {
    const keys = lockKeys(key).releaseKeys;
    return [keys.length, ...keys, field, HANDOFF_MS, 'publish'];
  },
  // An integer (the token) since 2026-11-26; `{1, token}` in earlier builds (for `RXLOCK_DIST`).
  granted: (reply) => typeof reply === 'number' || (Array.isArray(reply) && reply[0] === 1),
};

type Call = ReturnType<LockScripts['acquire']>;

/** Names the probe's holder and waiter clients apart from any other run's. */
const RUN_ID = randomUUID().slice(0, 8);

/**
 * The calls of a contended `key` as `lock$` sends them: a holder takes it, a waiter (of another client, which
 * takes direct hand-offs) is refused and queued, the holder's release hands it to the waiter, whose client
 * listens on `waiterChannel`, and the waiter releases it.
 */
export function rxlockContendedCalls(key: string): {
  holderAcquire: Call;
  waiterAcquire: Call;
  holderRelease: Call;
  waiterRelease: Call;
  waiterChannel: string;
  waiterField: string;
} {
  const holder = `holder-${RUN_ID}:#1`;
  const waiterClient = `waiter-${RUN_ID}`;
  const waiter = `${waiterClient}:#1`;
  return {
    holderAcquire: RXLOCK_LOCK_SCRIPTS.acquire(key, holder),
    waiterAcquire: RXLOCK_LOCK_SCRIPTS.acquire(key, waiter),
    holderRelease: RXLOCK_LOCK_SCRIPTS.release(key, holder),
    waiterRelease: RXLOCK_LOCK_SCRIPTS.release(key, waiter),
    waiterChannel: handOffChannel(lockKeys(key), waiterClient),
    waiterField: waiter,
  };
}

/**
 * Not a contender users would pick: rxlock's own acquire and release scripts, with the keys and arguments
 * `lock$` sends for an owner that never re-enters, straight through ioredis without the engine. Between the floor and rxlock, it splits what a
 * cycle costs into the scripts' share and the engine's. Uncontended only, like the floor.
 */
export const rxlockScripts: Contender = {
  id: 'rxlock-scripts',
  label: 'rxlock scripts, no engine',
  settings:
    "rxlock's lock acquire and release scripts (EVALSHA, loaded before the window) with the keys and arguments `lock$` sends for an owner that never re-enters (field `<uuid>:#1`, lease 30000, mode `new+d`, handoffMs 100), sent from a plain async loop: no engine, no watchdog, no waiting. Not a lock users would write; it shows how much of rxlock's cycle is its scripts. Uncontended only.",
  excludes: false,
  unavailable: () => Promise.resolve(undefined),
  open: ({ key, connect }) => scriptsWorker(connect(), RXLOCK_LOCK_SCRIPTS, key, `${randomUUID()}:#1`),
};

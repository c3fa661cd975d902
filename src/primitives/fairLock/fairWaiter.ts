import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import type { Reply, Script } from '../../store/Script.js';
import { HandOffClock } from '../handOffClock.js';
import { fairLockAcquireScript, parseFairAttempt, type FairAttempt } from './acquireScript.js';

/**
 * One fair lock acquisition, as the messages on its owner's channel see it. A release that hands the lock
 * over directly says so in the message, and the waiter takes the grant from there (see `HandOffClock`).
 *
 * It is also the acquire script as this acquisition sends it (`Script`): parsing a reply is where the
 * waiter learns that an attempt found it queued, and at what server time, without an Observable around
 * each attempt.
 */
export class FairWaiter extends HandOffClock implements Script<FairAttempt> {
  readonly waitId: string;

  constructor(waitId: string) {
    super();
    this.waitId = waitId;
  }

  get name(): string {
    return fairLockAcquireScript.name;
  }
  get lua(): string {
    return fairLockAcquireScript.lua;
  }
  get sha1(): string {
    return fairLockAcquireScript.sha1;
  }
  get memory(): (db: MemoryDb, keys: readonly string[], argv: readonly string[]) => Reply {
    return fairLockAcquireScript.memory;
  }

  parse(reply: Reply): FairAttempt {
    const attempt = parseFairAttempt(reply);
    // A single try (retryInMs -1) joins no line.
    if (!attempt.granted && attempt.retryInMs >= 0) this.queued(attempt.serverUs);
    return attempt;
  }
}

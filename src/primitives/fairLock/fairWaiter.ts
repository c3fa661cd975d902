import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import type { Reply, Script } from '../../store/Script.js';
import { fairLockAcquireScript, parseFairAttempt, type FairAttempt } from './acquireScript.js';

/** What a waiter can take from a hand-off message without asking Redis. */
export interface HandedGrant {
  readonly token: number;
  /** A local time no later than the hand-off: the lease counts from it. */
  readonly sentAt: number;
}

/**
 * One fair lock acquisition, as the messages on its owner's channel see it. A release that hands the lock
 * over directly says so in the message, and the waiter takes the grant from there. The message is trusted
 * only if the hand-off happened after this waiter's latest attempt that found it queued: an older one
 * would be a grant that has since been lost.
 *
 * It is also the acquire script as this acquisition sends it (`Script`): parsing a reply is where the
 * waiter learns that an attempt found it queued, and at what server time, without an Observable around
 * each attempt.
 */
export class FairWaiter implements Script<FairAttempt> {
  readonly waitId: string;
  /** When the attempt in flight was sent (local time). */
  #sentAt = 0;
  #queuedSentAt = 0;
  /** The server time of the latest attempt that found this waiter queued; -1 before any. */
  #queuedServerUs = -1;
  /** The latest hand-off message for this waiter: its token (-1 without fencing) and server time; -1 when none. */
  #handedToken = -1;
  #handedServerUs = -1;

  constructor(waitId: string) {
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

  /** An attempt leaves now (local time); its reply comes back through `parse`. */
  sending(sentAt: number): void {
    this.#sentAt = sentAt;
  }

  parse(reply: Reply): FairAttempt {
    const attempt = parseFairAttempt(reply);
    // A single try (retryInMs -1) joins no line.
    if (!attempt.granted && attempt.retryInMs >= 0 && attempt.serverUs >= this.#queuedServerUs) {
      this.#queuedSentAt = this.#sentAt;
      this.#queuedServerUs = attempt.serverUs;
    }
    return attempt;
  }

  handed(token: number, serverUs: number): void {
    this.#handedToken = token;
    this.#handedServerUs = serverUs;
  }

  /**
   * The grant a hand-off message brought, if it is current. The lease started at the hand-off; locally
   * that is at least the queued attempt's send time plus the server time between the two, allowing for
   * clock rates differing by `driftFactor`.
   */
  takeGrant(now: number, driftFactor: number): HandedGrant | undefined {
    const serverUs = this.#handedServerUs;
    this.#handedServerUs = -1;
    if (serverUs < 0 || this.#queuedServerUs < 0 || serverUs < this.#queuedServerUs) return undefined;
    const elapsedMs = ((serverUs - this.#queuedServerUs) / 1000) * (1 - driftFactor);
    return { token: this.#handedToken, sentAt: Math.min(now, this.#queuedSentAt + elapsedMs) };
  }
}

/** What a waiter can take from a hand-off message without asking Redis. */
export interface HandedGrant {
  readonly token: number;
  /** A local time no later than the hand-off: the lease counts from it. */
  readonly sentAt: number;
}

/**
 * A waiter's side of direct hand-offs (fair lock and lock): a release hands the lock to a queued waiter
 * and says so in a message, with the server's time; the waiter takes the grant from there and times its
 * lease from it. The message is trusted only if the hand-off happened after this waiter's latest attempt
 * that found it queued: an older one would be a grant that has since been lost.
 */
export class HandOffClock {
  /** When the attempt in flight was sent (local time). */
  #sentAt = 0;
  #queuedSentAt = 0;
  /** The server time (µs) of the latest attempt that found this waiter queued; -1 before any. */
  #queuedServerUs = -1;
  /** The latest hand-off message for this waiter: its token (-1 without fencing) and server time; -1 when none. */
  #handedToken = -1;
  #handedServerUs = -1;

  /** An attempt leaves now (local time). */
  sending(sentAt: number): void {
    this.#sentAt = sentAt;
  }

  /** The reply to the attempt sent at `sentAt` (by default the one in flight) found this waiter queued, at this server time (µs). */
  queued(serverUs: number, sentAt = this.#sentAt): void {
    if (serverUs < this.#queuedServerUs) return;
    this.#queuedSentAt = sentAt;
    this.#queuedServerUs = serverUs;
  }

  /**
   * The waiter released whatever it may hold (a compensation): a hand-off that reached it before that ran
   * was released with it. Until an attempt finds it queued again, no message is taken for a grant.
   */
  forgetHandOffs(): void {
    this.#queuedServerUs = -1;
    this.#handedServerUs = -1;
  }

  /** A hand-off message for this waiter arrived. */
  handed(token: number, serverUs: number): void {
    this.#handedToken = token;
    this.#handedServerUs = serverUs;
  }

  /**
   * The grant a hand-off message brought, if it is current (taken once). The lease started at the hand-off;
   * locally that is at least the queued attempt's send time plus the server time between the two, allowing
   * for clock rates differing by `driftFactor`.
   */
  takeGrant(now: number, driftFactor: number): HandedGrant | undefined {
    const serverUs = this.#handedServerUs;
    this.#handedServerUs = -1;
    if (serverUs < 0 || this.#queuedServerUs < 0 || serverUs < this.#queuedServerUs) return undefined;
    const elapsedMs = ((serverUs - this.#queuedServerUs) / 1000) * (1 - driftFactor);
    return { token: this.#handedToken, sentAt: Math.min(now, this.#queuedSentAt + elapsedMs) };
  }
}

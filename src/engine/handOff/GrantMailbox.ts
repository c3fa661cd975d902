import type { HandOffClock } from './HandOffClock.js';

/**
 * Per client: the acquisitions that may be handed a lock directly, by the channel their client hears hand-offs
 * on and their member (their name in the lock's queue). A grant message for one of them is recorded in its
 * clock, from which its next attempt takes the grant without a command; a grant for a member nobody here
 * expects is refused, and the hub gives it back. An acquisition is expected from the moment it may be
 * queued until its hold ends, so that a hand-off crossing its own successful attempt is recognised.
 */
export class GrantMailbox {
  readonly #expected = new Map<string, HandOffClock>();

  /** Hand-offs to `member` on `channel` go to `clock` until `forget`. */
  expect(channel: string, member: string, clock: HandOffClock): void {
    this.#expected.set(addressOf(channel, member), clock);
  }

  /** Stops expecting hand-offs to `member` on `channel`, if `clock` is still the one expecting them. */
  forget(channel: string, member: string, clock: HandOffClock): void {
    const address = addressOf(channel, member);
    if (this.#expected.get(address) === clock) this.#expected.delete(address);
  }

  /** A grant to `member` arrived on `channel`: whether an acquisition here expected it (it is then recorded). */
  deliver(channel: string, member: string, token: number, serverUs: number): boolean {
    const clock = this.#expected.get(addressOf(channel, member));
    if (clock === undefined) return false;
    clock.handed(token, serverUs);
    return true;
  }

  /** How many acquisitions expect hand-offs (for leak checks). */
  get size(): number {
    return this.#expected.size;
  }

  /** Client close: nothing is expected any more. */
  clear(): void {
    this.#expected.clear();
  }
}

function addressOf(channel: string, member: string): string {
  return `${channel}\n${member}`;
}

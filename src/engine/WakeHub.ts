import type { SchedulerLike, Subscription } from 'rxjs';
import type { StoreConnection } from '../store/Store.js';
import type { GrantMailbox } from './handOff/GrantMailbox.js';

/**
 * How many local waiters a message wakes: one (an unlock), all (a write unlock or an open latch),
 * a number (released permits), or a specific waiter (a reservation, a direct hand-off).
 */
export type Wake =
  | { readonly wake: 'one' }
  | { readonly wake: 'all' }
  | { readonly wake: 'count'; readonly count: number }
  /** `count` permits were released: as many waiters wake as it can satisfy (all of them, if one needs several). */
  | { readonly wake: 'permits'; readonly count: number }
  /** The waiter with this id, which may be waiting at another client (then nothing happens here). */
  | { readonly wake: 'id'; readonly id: string }
  /** A direct hand-off to `member`: the client's mailbox takes the grant (see `GrantMailbox`), then `member` wakes. */
  | { readonly wake: 'grant'; readonly member: string; readonly token: number; readonly serverUs: number }
  /** `member` should try again within `afterMs` (a hand-off ahead of it may lapse then), if it waits here. */
  | { readonly wake: 'later'; readonly member: string; readonly afterMs: number }
  | { readonly wake: 'none' };

/** A message that wakes nobody here. */
export const NO_WAKE: Wake = { wake: 'none' };

/**
 * How long a lock's waiters keep their channel subscribed after their wait, so that a client acquiring the same
 * name again soon (a loop) needs no new SUBSCRIBE.
 */
export const WAIT_CHANNEL_GRACE_MS = 5_000;

/** Reads a channel's message into the waiters it wakes. It only classifies: the hub and the mailbox act. */
export type WakePolicy = (message: string) => Wake;

/** How a waiter joins a channel's local line. */
export interface JoinOptions {
  /** Keep the channel subscribed this long after the last local waiter leaves. @default 0 */
  readonly graceMs?: number | undefined;
  /** Permits this waiter needs (a `permits` wake counts them). @default 1 */
  readonly need?: number | undefined;
  /**
   * Gives back a lock handed directly to a member that nobody here expects (its acquisition is over, and its
   * leave was lost or crossed the hand-off): released by that member, which hands it on. Needed on channels
   * whose policy answers `grant`.
   */
  readonly giveBack?: ((member: string) => void) | undefined;
}

export interface WaiterCallbacks {
  /** The channel's subscription was (re)confirmed: messages may have been missed, so try again. */
  onReady(): void;
  /** A message (or a wake passed on by a waiter that left) is for this waiter. */
  onWake(): void;
  /** Try again within `afterMs` at the latest (a `later` wake). */
  onWakeLater(afterMs: number): void;
}

/** One waiter's place in a channel's local line. */
export interface WaitTicket {
  /** Whether the channel's subscription is confirmed already. */
  readonly ready: boolean;
  /** Changes the id messages name this waiter by (its place in a server-side queue changed). */
  identify(id: string): void;
  /** The attempt a wake caused did not win: wait for the next wake (or run again at once if one came meanwhile). */
  rearm(): void;
  /** Leaves the line. A waiter that was woken and leaves without the lock passes its wake to the next one. */
  leave(acquired: boolean): void;
}

interface ChannelLine {
  readonly policy: WakePolicy;
  readonly giveBack: ((member: string) => void) | undefined;
  readonly waiters: Waiter[];
  subscription: Subscription | undefined;
  ready: boolean;
  /** A wake arrived while nobody could take it: the next waiter to join tries at once. */
  unclaimed: boolean;
  /**
   * Ids that messages named while no local waiter had them yet, newest last. The message and the reply that
   * tells a waiter its id travel on two connections, so the message can come first; the waiter finds it here.
   */
  readonly unmatched: string[];
  /** The timer that drops the line once it has had no waiter for its grace period (see `#leaveLine`). */
  grace: Subscription | undefined;
  /** When the line last became empty, and the grace its last waiter asked for. */
  idleSince: number;
  graceMs: number;
}

/**
 * One waiter's place in a channel's local line, and the ticket `join` hands out: one object per wait, as
 * waits are the hot path under contention.
 */
class Waiter implements WaitTicket {
  owner: string;
  readonly line: ChannelLine;
  readonly channel: string;
  readonly callbacks: WaiterCallbacks;
  readonly graceMs: number;
  readonly need: number;
  /** Woken, and its attempt not yet settled. */
  woken = false;
  /** A wake arrived while its attempt was in flight. */
  pending = false;
  readonly #leaveLine: (waiter: Waiter, acquired: boolean) => void;

  constructor(
    line: ChannelLine,
    channel: string,
    owner: string,
    callbacks: WaiterCallbacks,
    graceMs: number,
    need: number,
    leaveLine: (waiter: Waiter, acquired: boolean) => void,
  ) {
    this.line = line;
    this.channel = channel;
    this.owner = owner;
    this.callbacks = callbacks;
    this.graceMs = graceMs;
    this.need = need;
    this.#leaveLine = leaveLine;
  }

  get ready(): boolean {
    return this.line.ready;
  }

  identify(id: string): void {
    this.owner = id;
    if (takeUnmatched(this.line, id)) this.wake();
  }

  rearm(): void {
    this.woken = false;
    if (this.pending) {
      this.pending = false;
      this.wake();
    }
  }

  leave(acquired: boolean): void {
    this.#leaveLine(this, acquired);
  }

  wake(): void {
    if (this.woken) {
      this.pending = true;
      return;
    }
    this.woken = true;
    this.callbacks.onWake();
  }
}

/** How many unmatched ids a line remembers (most belong to other clients' waiters). */
const UNMATCHED_KEPT = 64;

/**
 * Per client: one line of local waiters per channel over the shared subscriber connection. The channel
 * is subscribed while anyone waits on it (and `graceMs` after), and each message wakes only as many
 * waiters as it can satisfy, in the order they started waiting.
 */
export class WakeHub {
  readonly #connection: StoreConnection;
  readonly #scheduler: SchedulerLike;
  readonly #mailbox: GrantMailbox;
  readonly #lines = new Map<string, ChannelLine>();

  constructor(connection: StoreConnection, scheduler: SchedulerLike, mailbox: GrantMailbox) {
    this.#connection = connection;
    this.#scheduler = scheduler;
    this.#mailbox = mailbox;
  }

  /** Channels currently subscribed (including those in their grace period). */
  get channelCount(): number {
    return this.#lines.size;
  }

  /** Whether `channel` is subscribed, or being subscribed (a waiter joined its line). */
  listening(channel: string): boolean {
    return this.#lines.has(channel);
  }

  join(channel: string, owner: string, policy: WakePolicy, callbacks: WaiterCallbacks, options?: JoinOptions): WaitTicket {
    const line = this.#line(channel, policy, options?.giveBack);
    const waiter = new Waiter(line, channel, owner, callbacks, options?.graceMs ?? 0, options?.need ?? 1, this.#leaveLine);
    line.waiters.push(waiter);
    if ((line.unclaimed && line.ready) || takeUnmatched(line, owner)) {
      line.unclaimed = false;
      waiter.woken = true;
      this.#scheduler.schedule(() => callbacks.onWake());
    }
    return waiter;
  }

  /** Unsubscribes every channel at once (client close). */
  closeAll(): void {
    for (const line of this.#lines.values()) {
      line.grace?.unsubscribe();
      line.subscription?.unsubscribe();
    }
    this.#lines.clear();
  }

  #line(channel: string, policy: WakePolicy, giveBack: ((member: string) => void) | undefined): ChannelLine {
    const existing = this.#lines.get(channel);
    if (existing !== undefined) return existing;
    const line: ChannelLine = {
      policy,
      giveBack,
      waiters: [],
      subscription: undefined,
      ready: false,
      unclaimed: false,
      unmatched: [],
      grace: undefined,
      idleSince: 0,
      graceMs: 0,
    };
    this.#lines.set(channel, line);
    line.subscription = this.#connection.listen(channel).subscribe({
      next: (event) => {
        if (event.type === 'ready') {
          line.ready = true;
          for (const waiter of [...line.waiters]) waiter.callbacks.onReady();
        } else {
          this.#dispatch(channel, line, line.policy(event.message));
        }
      },
      // The connection reports its own failures; a waiter still has its TTL fallback.
      error: () => {
        line.ready = false;
      },
    });
    return line;
  }

  #dispatch(channel: string, line: ChannelLine, wake: Wake): void {
    switch (wake.wake) {
      case 'none':
        return;
      case 'one':
        this.#wakeNext(line, 1);
        return;
      case 'count':
        this.#wakeNext(line, Math.max(0, wake.count));
        return;
      case 'all':
        for (const waiter of [...line.waiters]) waiter.wake();
        return;
      case 'permits':
        // Woken in line order, a waiter needing more than the count would use up the wake of one behind it that needs fewer.
        if (line.waiters.some((waiter) => waiter.need > 1)) for (const waiter of [...line.waiters]) waiter.wake();
        else this.#wakeNext(line, Math.max(0, wake.count));
        return;
      case 'id':
        this.#wakeId(line, wake.id);
        return;
      case 'grant':
        if (this.#mailbox.deliver(channel, wake.member, wake.token, wake.serverUs)) this.#wakeId(line, wake.member);
        else line.giveBack?.(wake.member);
        return;
      case 'later':
        line.waiters.find((waiter) => waiter.owner === wake.member)?.callbacks.onWakeLater(wake.afterMs);
        return;
    }
  }

  #wakeId(line: ChannelLine, id: string): void {
    const target = line.waiters.find((waiter) => waiter.owner === id);
    if (target !== undefined) target.wake();
    else if (line.unmatched.push(id) > UNMATCHED_KEPT) line.unmatched.shift();
  }

  #wakeNext(line: ChannelLine, count: number): void {
    let left = count;
    for (const waiter of [...line.waiters]) {
      if (left === 0) return;
      if (!waiter.woken) {
        waiter.wake();
        left--;
      }
    }
    // Everyone is already trying: make sure the wake is not lost if their attempts lose the race.
    if (left > 0) {
      const first = line.waiters.find((waiter) => !waiter.pending);
      if (first === undefined) line.unclaimed = true;
      else first.pending = true;
    }
  }

  readonly #leaveLine = (waiter: Waiter, acquired: boolean): void => {
    const { line, channel, graceMs } = waiter;
    const index = line.waiters.indexOf(waiter);
    if (index === -1) return;
    line.waiters.splice(index, 1);
    // The client closed its lines meanwhile (a granted waiter leaves after its lease went out, so a close
    // inside that emission comes first): nothing to pass on, and no grace timer for a line that is gone.
    if (this.#lines.get(channel) !== line) return;
    // A wake this waiter did not use belongs to the next one in line.
    if ((!acquired && waiter.woken) || waiter.pending) this.#wakeNext(line, 1);
    if (line.waiters.length > 0) return;
    if (graceMs === 0) {
      this.#drop(channel, line);
      return;
    }
    line.idleSince = this.#scheduler.now();
    line.graceMs = graceMs;
    // Under contention a line empties and fills on every hand-off: one timer checks it once per grace
    // period, instead of a timer set and cleared each time.
    line.grace ??= this.#scheduler.schedule(() => this.#graceOver(channel, line), graceMs);
  };

  #graceOver(channel: string, line: ChannelLine): void {
    line.grace = undefined;
    if (line.waiters.length > 0) return;
    const left = line.idleSince + line.graceMs - this.#scheduler.now();
    if (left > 0) line.grace = this.#scheduler.schedule(() => this.#graceOver(channel, line), left);
    else this.#drop(channel, line);
  }

  #drop(channel: string, line: ChannelLine): void {
    if (line.waiters.length > 0 || this.#lines.get(channel) !== line) return;
    this.#lines.delete(channel);
    // A line can be dropped at once (its last waiter asked for no grace) while an earlier grace timer runs.
    line.grace?.unsubscribe();
    line.grace = undefined;
    line.subscription?.unsubscribe();
  }
}

/** Whether a message named `id` before its waiter knew it; forgets it if so. */
function takeUnmatched(line: ChannelLine, id: string): boolean {
  const index = line.unmatched.lastIndexOf(id);
  if (index === -1) return false;
  line.unmatched.splice(index, 1);
  return true;
}

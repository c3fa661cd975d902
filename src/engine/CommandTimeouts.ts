import type { SchedulerLike, Subscription } from 'rxjs';
import { LinkedSet, type LinkedNode } from '../util/LinkedSet.js';

/** A command waiting for its reply. */
export interface TimedCommand {
  /** `scheduler.now()` after which the command times out. */
  readonly deadline: number;
  timedOut(): void;
}

/**
 * The client's one timer for command timeouts. Commands are many and short, so instead of a timer each
 * they join a list that a sweep checks every quarter of the timeout while any is pending: a command
 * that stays unanswered times out between `timeoutMs` and 1.25 × `timeoutMs` after it was sent.
 */
export class CommandTimeouts {
  readonly timeoutMs: number;
  readonly #scheduler: SchedulerLike;
  readonly #pending = new LinkedSet<TimedCommand>();
  #sweep: Subscription | undefined;
  /** After client close nothing times out: no sweep is armed for a command sent then (a late compensation). */
  #stopped = false;

  constructor(scheduler: SchedulerLike, timeoutMs: number) {
    this.#scheduler = scheduler;
    this.timeoutMs = timeoutMs;
  }

  /** Starts watching a command; `clear` the returned node when its reply arrives. */
  watch(command: TimedCommand): LinkedNode<TimedCommand> {
    const node = this.#pending.add(command);
    if (this.#stopped) return node;
    this.#sweep ??= this.#scheduler.schedule(() => this.#check(), Math.max(1, Math.ceil(this.timeoutMs / 4)));
    return node;
  }

  clear(node: LinkedNode<TimedCommand>): void {
    this.#pending.delete(node);
  }

  /** Stops the sweep (client close); pending commands no longer time out. */
  stop(): void {
    this.#stopped = true;
    this.#pending.clear();
    this.#sweep?.unsubscribe();
    this.#sweep = undefined;
  }

  #check(): void {
    this.#sweep = undefined;
    const now = this.#scheduler.now();
    for (const command of this.#pending) if (command.deadline <= now) command.timedOut();
    if (this.#pending.size > 0) this.#sweep = this.#scheduler.schedule(() => this.#check(), Math.max(1, Math.ceil(this.timeoutMs / 4)));
  }
}

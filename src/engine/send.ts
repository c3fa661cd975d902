import { isObservable, type Observable, type Subscription } from 'rxjs';
import type { ReplyObserver, ScriptCall } from '../store/Store.js';
import { StoreError } from '../store/StoreError.js';
import type { LinkedNode } from '../util/LinkedSet.js';
import type { ClientCore } from './ClientCore.js';
import type { TimedCommand } from './CommandTimeouts.js';
import { outcomeUnknown } from './toLockError.js';

/** A command as primitives hand it to the engine: a script call to send, or an Observable that sends on subscription. */
export type Command<R> = ScriptCall<R> | Observable<R>;

export type CommandObserver<T> = ReplyObserver<T>;

/**
 * Sends one store command and reports its one reply or error, or a `timeout` whose outcome is unknown
 * when no reply comes within `commandTimeoutMs` (the caller must compensate). Deliberately not tied to
 * anybody's subscription: a command that was sent runs, so its reply must be heard.
 */
export function send<T>(core: ClientCore, command: Command<T>, observer: ReplyObserver<T>, now = core.scheduler.now()): void {
  new PendingCommand(core, observer, now).start(command);
}

/** One command in flight; one object per command, as commands are the hot path. */
class PendingCommand<T> implements TimedCommand, ReplyObserver<T> {
  readonly deadline: number;
  readonly #core: ClientCore;
  readonly #observer: ReplyObserver<T>;
  readonly #node: LinkedNode<TimedCommand>;
  /** Counts this command for `close()`, which must not return while it (or a clean-up its reply sends) is out. */
  #counted = true;
  #settled = false;
  #subscription: Subscription | undefined;

  /** `now`: the caller's `scheduler.now()`, which it read anyway (one clock read fewer per command). */
  constructor(core: ClientCore, observer: ReplyObserver<T>, now: number) {
    this.#core = core;
    this.#observer = observer;
    this.deadline = now + core.timeouts.timeoutMs;
    this.#node = core.timeouts.watch(this);
    core.begin();
  }

  start(command: Command<T>): void {
    if (isObservable(command)) {
      this.#subscription = command.subscribe(this);
      return;
    }
    const { connection } = this.#core;
    if (connection.call !== undefined) connection.call(command.script, command.keys, command.args, this);
    else this.#subscription = connection.run(command.script, command.keys, command.args).subscribe(this);
  }

  // Uncounted only after the observer ran, so that a command it sends in turn is counted first.
  next(reply: T): void {
    try {
      if (this.#settle()) this.#observer.next(reply);
    } finally {
      this.#uncount();
    }
  }

  error(error: unknown): void {
    try {
      if (this.#settle()) this.#observer.error(error);
    } finally {
      this.#uncount();
    }
  }

  timedOut(): void {
    if (!this.#settle()) return;
    this.#subscription?.unsubscribe();
    try {
      this.#observer.error(new StoreError('timeout', `no reply within ${this.#core.timeouts.timeoutMs} ms`, true));
    } finally {
      this.#uncount();
    }
  }

  #uncount(): void {
    if (!this.#counted) return;
    this.#counted = false;
    this.#core.end();
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#core.timeouts.clear(this.#node);
    return true;
  }
}

/**
 * Sends a command whose outcome nobody waits for (compensations); failures are dropped: the TTL is the safety
 * net. `close()` still waits for it, so a client closed right after a failed acquire does not cut it short.
 * `settled`, if given, hears whether it has run or never will (`true`), or may still run (`false`).
 */
export function fire(core: ClientCore, command: Command<unknown>, settled?: (known: boolean) => void): void {
  // Counted until its one reply or error (PendingCommand reports exactly one), whatever `settled` does.
  core.begin();
  const done = (known: boolean): void => {
    core.end();
    settled?.(known);
  };
  send(core, command, { next: () => done(true), error: (error: unknown) => done(!outcomeUnknown(error)) });
}

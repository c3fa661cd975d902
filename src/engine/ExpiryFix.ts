import type { ReplyObserver, ScriptCall } from '../store/Store.js';
import { retryPauseMs, type ClientCore } from './ClientCore.js';
import { send } from './send.js';
import { isTransient } from './toLockError.js';

/** The lease an `ExpiryFix` changes (a `Hold`, taken off the watchdog). */
export interface FixableLease {
  readonly heldUntil: number;
  readonly held: boolean;
  expiryFixed(sentAt: number, ms: number, onFixed: () => void): void;
  lose(reason: 'not-held' | 'unconfirmed'): void;
}

/**
 * One owner-checked command that sets a single hold to a fixed TTL of `ms` (`RenewKind.fix`), retried while
 * its outcome is unknown and the hold's last deadline still stands.
 */
export class ExpiryFix implements ReplyObserver<readonly number[]> {
  readonly #core: ClientCore;
  readonly #lease: FixableLease;
  readonly #command: ScriptCall<readonly number[]>;
  readonly #ms: number;
  readonly #onFixed: () => void;
  #sentAt = 0;

  constructor(core: ClientCore, lease: FixableLease, command: ScriptCall<readonly number[]>, ms: number, onFixed: () => void) {
    this.#core = core;
    this.#lease = lease;
    this.#command = command;
    this.#ms = ms;
    this.#onFixed = onFixed;
  }

  send(): void {
    const core = this.#core;
    this.#sentAt = core.scheduler.now();
    send(core, this.#command, this, this.#sentAt);
  }

  next([renewed]: readonly number[]): void {
    if (!this.#lease.held) return;
    if (renewed === 1) this.#lease.expiryFixed(this.#sentAt, this.#ms, this.#onFixed);
    else this.#lease.lose('not-held');
  }

  error(error: unknown): void {
    const core = this.#core;
    const lease = this.#lease;
    if (!lease.held) return;
    const pause = retryPauseMs(core.settings);
    if (!isTransient(error) || core.scheduler.now() + pause >= lease.heldUntil) {
      lease.lose('unconfirmed');
      return;
    }
    core.scheduler.schedule(() => {
      if (lease.held) this.send();
    }, pause);
  }
}

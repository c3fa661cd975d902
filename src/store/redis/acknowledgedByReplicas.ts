import { throwError, type Observable } from 'rxjs';
import type { Script } from '../Script.js';
import type { ChannelEvent, RunOptions, ServerInfo, StoreConnection } from '../Store.js';

/**
 * Makes every script on `connection` wait for `replicas` replica acknowledgements (`WAIT`, at most
 * `timeoutMs`). A script that none acknowledged fails with `StoreError('no-replicas')`, whose outcome counts
 * as unknown: an acquire is then released again and fails, a renewal is retried until the hold's deadline,
 * a release is reported as failed. This is Redisson's `checkLockSyncedSlaves`.
 */
export function acknowledgedByReplicas(connection: StoreConnection, replicas: number, timeoutMs: number): StoreConnection {
  return replicas <= 0 ? connection : new AcknowledgedConnection(connection, replicas, timeoutMs);
}

// A class rather than an object literal with getters, which V8 would keep in dictionary mode: every command
// of the client goes through this object.
class AcknowledgedConnection implements StoreConnection {
  // Declared, not defined: a connection without `call` must not get an own `call` property of undefined.
  declare readonly call?: NonNullable<StoreConnection['call']>;
  readonly #connection: StoreConnection;
  readonly #replicas: number;
  readonly #timeoutMs: number;

  constructor(connection: StoreConnection, replicas: number, timeoutMs: number) {
    this.#connection = connection;
    this.#replicas = replicas;
    this.#timeoutMs = timeoutMs;
    // Only where the connection has it: without `call` the engine falls back to `run`.
    if (connection.call !== undefined) {
      this.call = (script, keys, args, observer, options) => connection.call?.(script, keys, args, observer, this.#withAcks(options));
    }
  }

  get publishCommand(): StoreConnection['publishCommand'] {
    return this.#connection.publishCommand;
  }

  get subscribersVisible(): boolean {
    return this.#connection.subscribersVisible === true;
  }

  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], options?: RunOptions): Observable<R> {
    return this.#connection.run(script, keys, args, this.#withAcks(options));
  }

  listen(channel: string): Observable<ChannelEvent> {
    return this.#connection.listen(channel);
  }

  epoch(): number {
    return this.#connection.epoch();
  }

  slotOf(key: string): number {
    return this.#connection.slotOf(key);
  }

  evictionPolicy(): Promise<string | undefined> {
    return this.#connection.evictionPolicy();
  }

  serverInfo(): Observable<ServerInfo> {
    return this.#connection.serverInfo?.() ?? throwError(() => new Error('rxlock: this store does not report its server'));
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  #withAcks(options: RunOptions | undefined): RunOptions {
    return { replicas: options?.replicas ?? this.#replicas, replicaTimeoutMs: options?.replicaTimeoutMs ?? this.#timeoutMs };
  }
}

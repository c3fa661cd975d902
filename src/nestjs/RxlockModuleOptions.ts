import type { SchedulerLike } from 'rxjs';
import type { LockClient, LockClientOptions } from '../index.js';
import { describeValue } from '../util/describeValue.js';
import { assertDuration } from '../util/validate.js';

/** Settings of the module itself, next to the client's. */
export interface RxlockModuleSettings {
  /**
   * On shutdown, how long to wait for locked calls still running (`@WithLock`, `LockInterceptor`,
   * `@OnLeader` handlers) before the client is closed, which releases what they hold and fails them with
   * `LockLostError` (`closed`).
   * @default 5000
   */
  shutdownGraceMs?: number | undefined;
  /**
   * Pause before a leadership campaign that failed for another reason than a lost term (Redis unreachable,
   * a key of another type) starts again. The failure is logged.
   * @default 1000
   */
  leaderRetryMs?: number | undefined;
}

/** Your own client: the module uses it and never closes it. */
export interface RxlockClientOption {
  /** A client from `createLockClient`. You close it, after the application (`await app.close()`). */
  client: LockClient;
  /**
   * Times the module's own waits (the shutdown grace, campaign retries).
   * @default rxlock's monotonicScheduler
   */
  scheduler?: SchedulerLike | undefined;
  /** Not with `client`. */
  redis?: undefined;
  /** Not with `client`. */
  store?: undefined;
}

/**
 * Options of `RxlockModule.forRoot`: either the options of `createLockClient` (`{ redis }` or `{ store }`
 * and its settings), and the module creates the client and closes it on shutdown (never the Redis
 * connection you passed: close that yourself, in `onApplicationShutdown` or after `app.close()`), or
 * `{ client }`, your own client, which the module never closes. Plus the module's settings.
 */
export type RxlockModuleOptions = (
  | (LockClientOptions & {
      /** Not with the options of `createLockClient`. */
      client?: undefined;
    })
  | RxlockClientOption
) &
  RxlockModuleSettings;

const SETTING_KEYS = ['shutdownGraceMs', 'leaderRetryMs'] as const;

/** The module's settings (`RxlockModuleSettings`) as `RxlockRuntime` uses them: checked, with their defaults. */
export interface ModuleSettings {
  /** See `RxlockModuleSettings.shutdownGraceMs`. */
  readonly shutdownGraceMs: number;
  /** See `RxlockModuleSettings.leaderRetryMs`. */
  readonly leaderRetryMs: number;
}

/** Checks the module's settings; throws a TypeError or RangeError naming the option and the value. */
export function moduleSettings(options: RxlockModuleOptions): ModuleSettings {
  const where = 'RxlockModule.forRoot';
  if ((options as unknown) === null || typeof options !== 'object')
    throw new TypeError(`rxlock: ${where}: options must be an object, got ${describeValue(options)}`);
  const { shutdownGraceMs = 5_000, leaderRetryMs = 1_000 } = options;
  assertDuration(shutdownGraceMs, 'shutdownGraceMs', where, { min: 0 });
  assertDuration(leaderRetryMs, 'leaderRetryMs', where, { min: 1 });
  return { shutdownGraceMs, leaderRetryMs };
}

/** The options of `createLockClient` among the module's, or `undefined` when the user passed a client. */
export function clientOptionsOf(options: RxlockModuleOptions): LockClientOptions | undefined {
  if (options.client !== undefined) {
    const client: unknown = options.client;
    if (
      client === null ||
      typeof client !== 'object' ||
      typeof (client as LockClient).lock$ !== 'function' ||
      typeof (client as LockClient).close !== 'function'
    ) {
      throw new TypeError(`rxlock: RxlockModule.forRoot: option "client" must be a LockClient (from createLockClient), got ${describeValue(client)}`);
    }
    const extra = Object.keys(options).filter((key) => !['client', 'scheduler', ...SETTING_KEYS].includes(key));
    if (extra.length > 0) {
      throw new TypeError(
        `rxlock: RxlockModule.forRoot: with option "client", the client's own options (${extra.map((key) => `"${key}"`).join(', ')}) cannot apply: they were given when it was created`,
      );
    }
    return undefined;
  }
  const clientOptions: LockClientOptions & RxlockModuleSettings & { client?: undefined } = { ...options };
  delete clientOptions.shutdownGraceMs;
  delete clientOptions.leaderRetryMs;
  delete clientOptions.client;
  return clientOptions;
}

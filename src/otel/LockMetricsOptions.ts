import type { Meter } from '@opentelemetry/api';

/** Options of `instrumentLocks`. */
export interface LockMetricsOptions {
  /**
   * The meter the instruments are created on.
   * @default `metrics.getMeter('rxlock')`: the global MeterProvider, which records nothing until you register one
   */
  meter?: Meter | undefined;
  /**
   * The value of the `rxlock.lock.name` attribute for a lock name. Every distinct value is a separate
   * time series, so names that carry ids (`orders:1234`) must be grouped. Return `undefined` to leave the
   * attribute out.
   * @default the name up to its first ':' (`orders:1234` → `orders`)
   */
  nameGroup?: ((name: string) => string | undefined) | undefined;
  /**
   * At most this many distinct `rxlock.lock.name` values are recorded; later groups are recorded as
   * `_other`, so a grouping that lets ids through cannot flood the metrics backend.
   * @default 100
   */
  maxNameGroups?: number | undefined;
}

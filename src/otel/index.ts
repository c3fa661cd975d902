/**
 * OpenTelemetry metrics from a lock client's `events$`: {@link instrumentLocks}. Needs `@opentelemetry/api`,
 * an optional peer dependency of rxlock.
 *
 * @module rxlock/otel
 */
export { instrumentLocks } from './instrumentLocks.js';
export type { LockMetricsOptions } from './LockMetricsOptions.js';
export { nameUpToFirstColon, OTHER_GROUP } from './nameGroups.js';

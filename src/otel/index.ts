// rxlock/otel: OpenTelemetry metrics from a client's events$. Needs @opentelemetry/api (an optional peer dependency of rxlock).
export { instrumentLocks } from './instrumentLocks.js';
export type { LockMetricsOptions } from './LockMetricsOptions.js';
export { nameUpToFirstColon, OTHER_GROUP } from './nameGroups.js';

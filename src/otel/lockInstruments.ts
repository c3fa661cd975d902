import type { Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';

/** Bucket boundaries in seconds for wait and hold times: from a fast uncontended grant to a long job. */
const DURATION_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The instruments `instrumentLocks` records to. Names follow OpenTelemetry's conventions (dotted, UCUM units). */
export interface LockInstruments {
  readonly acquisitions: Counter;
  readonly releases: Counter;
  readonly losses: Counter;
  readonly timeouts: Counter;
  readonly renewalFailures: Counter;
  readonly releaseFailures: Counter;
  readonly waitDuration: Histogram;
  readonly holdDuration: Histogram;
  readonly held: UpDownCounter;
}

export function createLockInstruments(meter: Meter): LockInstruments {
  const duration = (name: string, description: string): Histogram =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } });
  return {
    acquisitions: meter.createCounter('rxlock.lock.acquisitions', { description: 'Leases granted', unit: '{lease}' }),
    releases: meter.createCounter('rxlock.lock.releases', { description: 'Leases released and confirmed by Redis', unit: '{lease}' }),
    losses: meter.createCounter('rxlock.lock.losses', {
      description: 'Leases lost before release (attribute rxlock.lock.loss_reason: not-held, unconfirmed, expired, closed)',
      unit: '{lease}',
    }),
    timeouts: meter.createCounter('rxlock.lock.timeouts', { description: 'Acquisitions that gave up after waitMs', unit: '{acquisition}' }),
    renewalFailures: meter.createCounter('rxlock.lock.renewal_failures', {
      description: 'Watchdog renewals that failed and will be retried',
      unit: '{renewal}',
    }),
    releaseFailures: meter.createCounter('rxlock.lock.release_failures', { description: 'Releases that failed (the key expires by its TTL)', unit: '{lease}' }),
    waitDuration: duration('rxlock.lock.wait.duration', 'Time from subscribing to the grant'),
    holdDuration: duration('rxlock.lock.hold.duration', 'Time from the grant to the confirmed release'),
    held: meter.createUpDownCounter('rxlock.lock.held', { description: 'Leases held right now', unit: '{lease}' }),
  };
}

import { metrics, type Attributes, type MeterProvider, type UpDownCounter } from '@opentelemetry/api';
import type { Observable, Subscription } from 'rxjs';
import type { LockEvent, LockKind } from '../engine/events.js';
import { describeValue } from '../util/describeValue.js';
import { createLockInstruments, type LockInstruments } from './lockInstruments.js';
import type { LockMetricsOptions } from './LockMetricsOptions.js';
import { cappedNameGroups, nameUpToFirstColon } from './nameGroups.js';

const WHERE = 'rxlock/otel: instrumentLocks';
const OPTION_KEYS = new Set(['meter', 'nameGroup', 'maxNameGroups']);

/** A lease this instrumentation saw granted and has not yet seen end, with the attributes it was counted under. */
interface OpenLease {
  count: number;
  readonly attributes: Attributes;
  /** Where it was counted: a MeterProvider registered since then has its own instruments. */
  readonly held: UpDownCounter;
}

/**
 * Records a client's `events$` as OpenTelemetry metrics until the returned subscription is unsubscribed:
 * counters `rxlock.lock.acquisitions`, `.releases`, `.losses`, `.timeouts`, `.renewal_failures`,
 * `.release_failures`, histograms `rxlock.lock.wait.duration` and `rxlock.lock.hold.duration` (seconds), and
 * the up-down counter `rxlock.lock.held`. Every point carries `rxlock.lock.kind` and, unless `nameGroup`
 * returns `undefined`, `rxlock.lock.name` (the name's group).
 *
 * Leases granted before the call are not counted, and ending them does not lower `held`. Unsubscribing
 * takes the leases this instrumentation counted out of `held` again. Without a `meter`, the global
 * MeterProvider's is looked up again whenever the provider changed, so one registered after this call is
 * recorded to from then on.
 */
export function instrumentLocks(events$: Observable<LockEvent>, options: LockMetricsOptions = {}): Subscription {
  checkOptions(events$, options);
  const { meter, nameGroup = nameUpToFirstColon, maxNameGroups = 100 } = options;
  const fixed = meter === undefined ? undefined : createLockInstruments(meter);
  const instrumentsNow = fixed === undefined ? globalInstruments() : () => fixed;
  const groupOf = cappedNameGroups(nameGroup, maxNameGroups);
  const open = new Map<string, OpenLease>();

  const attributesOf = (name: string, kind: LockKind): Attributes => {
    const group = groupOf(name);
    return group === undefined ? { 'rxlock.lock.kind': kind } : { 'rxlock.lock.kind': kind, 'rxlock.lock.name': group };
  };
  const leaseKey = (event: { kind: LockKind; name: string; owner: string }): string => `${event.kind}\u0000${event.name}\u0000${event.owner}`;
  /** Ends one counted lease; answers its attributes, or undefined when its grant was not seen. */
  const close = (key: string): Attributes | undefined => {
    const lease = open.get(key);
    if (lease === undefined) return undefined;
    if (--lease.count === 0) open.delete(key);
    lease.held.add(-1, lease.attributes);
    return lease.attributes;
  };

  const record = (event: LockEvent): void => {
    const instruments = instrumentsNow();
    switch (event.type) {
      case 'acquired': {
        const attributes = attributesOf(event.name, event.kind);
        instruments.acquisitions.add(1, attributes);
        instruments.waitDuration.record(event.waitedMs / 1_000, attributes);
        instruments.held.add(1, attributes);
        const key = leaseKey(event);
        const lease = open.get(key);
        if (lease === undefined) open.set(key, { count: 1, attributes, held: instruments.held });
        else lease.count++;
        return;
      }
      case 'released': {
        const attributes = close(leaseKey(event)) ?? attributesOf(event.name, event.kind);
        instruments.releases.add(1, attributes);
        instruments.holdDuration.record(event.heldMs / 1_000, attributes);
        return;
      }
      case 'release-failed':
        instruments.releaseFailures.add(1, close(leaseKey(event)) ?? attributesOf(event.name, event.kind));
        return;
      case 'lost': {
        const attributes = close(leaseKey(event)) ?? attributesOf(event.name, event.kind);
        instruments.losses.add(1, { ...attributes, 'rxlock.lock.loss_reason': event.error.reason });
        return;
      }
      case 'timeout':
        instruments.timeouts.add(1, attributesOf(event.name, event.kind));
        return;
      case 'renew-failed':
        instruments.renewalFailures.add(1, attributesOf(event.name, event.kind));
        return;
      case 'waiting':
      case 'renewed':
      case 'warning':
        return;
    }
  };

  const subscription = events$.subscribe({
    next: (event) => {
      try {
        record(event);
      } catch {
        // A throwing nameGroup (or meter) loses this one point instead of crashing the process from an RxJS next handler.
      }
    },
    error: () => undefined,
  });
  subscription.add(() => {
    for (const lease of open.values()) lease.held.add(-lease.count, lease.attributes);
    open.clear();
  });
  return subscription;
}

/** The global MeterProvider's instruments, made again when another provider was registered since the last event. */
function globalInstruments(): () => LockInstruments {
  let provider: MeterProvider | undefined;
  let instruments: LockInstruments | undefined;
  return () => {
    const current = metrics.getMeterProvider();
    if (instruments === undefined || current !== provider) {
      provider = current;
      instruments = createLockInstruments(current.getMeter('rxlock'));
    }
    return instruments;
  };
}

function checkOptions(events$: unknown, options: unknown): void {
  if (typeof events$ !== 'object' || events$ === null || typeof (events$ as { subscribe?: unknown }).subscribe !== 'function') {
    throw new TypeError(`${WHERE}: the first argument must be a client's events$ Observable, got ${describeValue(events$)}`);
  }
  if (typeof options !== 'object' || options === null) throw new TypeError(`${WHERE}: options must be an object, got ${describeValue(options)}`);
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`${WHERE}: unknown option "${key}" (known: ${[...OPTION_KEYS].join(', ')})`);
  }
  const { meter, nameGroup, maxNameGroups } = options as LockMetricsOptions;
  if (meter !== undefined && (typeof meter !== 'object' || typeof (meter as { createCounter?: unknown }).createCounter !== 'function')) {
    throw new TypeError(`${WHERE}: option "meter" must be an OpenTelemetry Meter, got ${describeValue(meter)}`);
  }
  if (nameGroup !== undefined && typeof nameGroup !== 'function') {
    throw new TypeError(`${WHERE}: option "nameGroup" must be a function (name) => string | undefined, got ${describeValue(nameGroup)}`);
  }
  if (maxNameGroups !== undefined && (typeof maxNameGroups !== 'number' || !Number.isInteger(maxNameGroups) || maxNameGroups < 1)) {
    throw new RangeError(`${WHERE}: option "maxNameGroups" must be a positive integer, got ${describeValue(maxNameGroups)}`);
  }
}

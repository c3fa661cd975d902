import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { firstValueFrom, Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, LockLostError, LockTimeoutError, type LockClient, type LockEvent } from '../src/index.js';
import { instrumentLocks } from '../src/otel/index.js';
import { createMemoryStore } from '../src/testing.js';
import { eventually } from './support/leaks.js';

/** A MeterProvider whose metrics are read through the SDK's in-memory exporter on demand. */
function inMemoryMetrics() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    meter: provider.getMeter('test'),
    /** Every metric of the latest collection, by name. */
    async collect(): Promise<Map<string, MetricData>> {
      await reader.forceFlush();
      const exports = exporter.getMetrics();
      const latest = exports.at(-1);
      exporter.reset();
      return new Map((latest?.scopeMetrics ?? []).flatMap((scope) => scope.metrics).map((metric) => [metric.descriptor.name, metric]));
    },
  };
}

type Points = { attributes: Record<string, unknown>; value: number }[];

/** A counter's (or up-down counter's) points, or a histogram's counts, as plain attributes + value. */
function points(collected: Map<string, MetricData>, name: string): Points {
  const metric = collected.get(name);
  if (metric === undefined) return [];
  return metric.dataPoints.map((point) => ({
    attributes: { ...point.attributes },
    value: metric.dataPointType === DataPointType.HISTOGRAM ? (point.value as { count: number }).count : (point.value as number),
  }));
}

function histogramSum(collected: Map<string, MetricData>, name: string): number {
  const metric = collected.get(name);
  if (metric?.dataPointType !== DataPointType.HISTOGRAM) throw new Error(`${name} is not a histogram`);
  return metric.dataPoints.reduce((sum, point) => sum + (point.value.sum ?? 0), 0);
}

const base = { name: 'orders:1', kind: 'lock' as const, owner: 'o1' };

describe('rxlock/otel: instrumentLocks on a stream of events', () => {
  let providers: MeterProvider[] = [];
  const setup = () => {
    const m = inMemoryMetrics();
    providers.push(m.provider);
    return m;
  };
  afterEach(async () => {
    await Promise.all(providers.map((provider) => provider.shutdown()));
    providers = [];
    metrics.disable();
  });

  it('counts grants, releases, losses and timeouts, records wait and hold times in seconds, and keeps the held count', async () => {
    const m = setup();
    const events = new Subject<LockEvent>();
    const subscription = instrumentLocks(events, { meter: m.meter });
    events.next({ ...base, type: 'waiting', time: 0 });
    events.next({ ...base, type: 'acquired', time: 250, waitedMs: 250, token: undefined });
    events.next({ ...base, name: 'orders:2', owner: 'o2', type: 'acquired', time: 260, waitedMs: 10, token: undefined });
    let collected = await m.collect();
    expect(points(collected, 'rxlock.lock.held')).toEqual([{ attributes: { 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': 'orders' }, value: 2 }]);

    events.next({ ...base, type: 'released', time: 1_250, heldMs: 1_000 });
    const lost = new LockLostError('orders:2', 'o2', 'not-held');
    events.next({ ...base, name: 'orders:2', owner: 'o2', type: 'lost', time: 1_300, error: lost });
    events.next({ ...base, name: 'jobs:9', owner: 'o3', type: 'timeout', time: 1_400, error: new LockTimeoutError('jobs:9', 100) });
    collected = await m.collect();

    const orders = { 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': 'orders' };
    expect(points(collected, 'rxlock.lock.acquisitions')).toEqual([{ attributes: orders, value: 2 }]);
    expect(points(collected, 'rxlock.lock.releases')).toEqual([{ attributes: orders, value: 1 }]);
    expect(points(collected, 'rxlock.lock.losses')).toEqual([{ attributes: { ...orders, 'rxlock.lock.loss_reason': 'not-held' }, value: 1 }]);
    expect(points(collected, 'rxlock.lock.timeouts')).toEqual([{ attributes: { 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': 'jobs' }, value: 1 }]);
    expect(points(collected, 'rxlock.lock.held')).toEqual([{ attributes: orders, value: 0 }]);
    expect(points(collected, 'rxlock.lock.wait.duration')).toEqual([{ attributes: orders, value: 2 }]);
    expect(histogramSum(collected, 'rxlock.lock.wait.duration')).toBeCloseTo(0.26, 6);
    expect(histogramSum(collected, 'rxlock.lock.hold.duration')).toBeCloseTo(1, 6);
    expect(collected.get('rxlock.lock.wait.duration')?.descriptor.unit).toBe('s');
    subscription.unsubscribe();
  });

  it('does not lower the held count for leases granted before it subscribed', async () => {
    const m = setup();
    const events = new Subject<LockEvent>();
    instrumentLocks(events, { meter: m.meter });
    events.next({ ...base, type: 'released', time: 10, heldMs: 10 });
    const collected = await m.collect();
    expect(points(collected, 'rxlock.lock.releases')).toHaveLength(1);
    expect(points(collected, 'rxlock.lock.held')).toEqual([]);
  });

  it('groups names with nameGroup, leaves the name out when it answers undefined, and caps distinct groups', async () => {
    const m = setup();
    const events = new Subject<LockEvent>();
    instrumentLocks(events, { meter: m.meter, nameGroup: (name) => (name.startsWith('tmp-') ? undefined : name), maxNameGroups: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'a', 'tmp-1']) events.next({ ...base, name, type: 'timeout', time: 0, error: new LockTimeoutError(name, 0) });
    const byName = Object.fromEntries(points(await m.collect(), 'rxlock.lock.timeouts').map((p) => [String(p.attributes['rxlock.lock.name']), p.value]));
    expect(byName).toEqual({ a: 2, b: 1, _other: 2, undefined: 1 });
  });

  it('survives a throwing nameGroup: that event is not recorded, later ones are', async () => {
    const m = setup();
    const events = new Subject<LockEvent>();
    instrumentLocks(events, {
      meter: m.meter,
      nameGroup: (name) => {
        if (name === 'bad') throw new Error('boom');
        return name;
      },
    });
    events.next({ ...base, name: 'bad', type: 'timeout', time: 0, error: new LockTimeoutError('bad', 0) });
    events.next({ ...base, name: 'good', type: 'timeout', time: 0, error: new LockTimeoutError('good', 0) });
    expect(points(await m.collect(), 'rxlock.lock.timeouts').map((p) => p.attributes['rxlock.lock.name'])).toEqual(['good']);
  });

  it('stops recording on unsubscribe and takes its open leases out of the held count', async () => {
    const m = setup();
    const events = new Subject<LockEvent>();
    const subscription = instrumentLocks(events, { meter: m.meter });
    events.next({ ...base, type: 'acquired', time: 0, waitedMs: 0, token: undefined });
    subscription.unsubscribe();
    expect(events.observed).toBe(false);
    events.next({ ...base, name: 'x', type: 'acquired', time: 0, waitedMs: 0, token: undefined });
    const collected = await m.collect();
    expect(points(collected, 'rxlock.lock.acquisitions')).toEqual([{ attributes: { 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': 'orders' }, value: 1 }]);
    expect(points(collected, 'rxlock.lock.held')).toEqual([{ attributes: { 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': 'orders' }, value: 0 }]);
  });

  it('uses the global MeterProvider when no meter is given, and records nothing before one is registered', async () => {
    const events = new Subject<LockEvent>();
    const silent = instrumentLocks(events);
    events.next({ ...base, type: 'timeout', time: 0, error: new LockTimeoutError('orders:1', 0) });
    silent.unsubscribe();

    const m = setup();
    expect(metrics.setGlobalMeterProvider(m.provider)).toBe(true);
    const subscription = instrumentLocks(events);
    events.next({ ...base, type: 'timeout', time: 0, error: new LockTimeoutError('orders:1', 0) });
    expect(points(await m.collect(), 'rxlock.lock.timeouts').map((p) => p.value)).toEqual([1]);
    subscription.unsubscribe();
  });

  it('records to a global MeterProvider registered after it started, from then on', async () => {
    const events = new Subject<LockEvent>();
    const subscription = instrumentLocks(events);
    events.next({ ...base, type: 'timeout', time: 0, error: new LockTimeoutError('orders:1', 0) });
    events.next({ ...base, type: 'acquired', time: 0, waitedMs: 1, token: undefined });
    const m = setup();
    expect(metrics.setGlobalMeterProvider(m.provider)).toBe(true);
    events.next({ ...base, type: 'timeout', time: 0, error: new LockTimeoutError('orders:1', 0) });
    // Released after the provider came: the lease was counted as held before it, so the new count is not lowered.
    events.next({ ...base, type: 'released', time: 0, heldMs: 5 });
    const collected = await m.collect();
    expect(points(collected, 'rxlock.lock.timeouts').map((p) => p.value)).toEqual([1]);
    expect(points(collected, 'rxlock.lock.releases').map((p) => p.value)).toEqual([1]);
    expect(points(collected, 'rxlock.lock.held').map((p) => p.value)).toEqual([]);
    subscription.unsubscribe();
  });

  it('rejects bad arguments with TypeError or RangeError naming the option', () => {
    const events = new Subject<LockEvent>();
    expect(() => instrumentLocks({} as never)).toThrow(TypeError);
    expect(() => instrumentLocks(events, { meter: {} as never })).toThrow(/option "meter"/);
    expect(() => instrumentLocks(events, { nameGroup: 'x' as never })).toThrow(/option "nameGroup"/);
    expect(() => instrumentLocks(events, { maxNameGroups: 0 })).toThrow(RangeError);
    expect(() => instrumentLocks(events, { bogus: 1 } as never)).toThrow(/unknown option "bogus"/);
    expect(events.observed).toBe(false);
  });
});

describe('rxlock/otel: instrumentLocks on a real client', () => {
  let client: LockClient | undefined;
  let provider: MeterProvider | undefined;
  afterEach(async () => {
    await client?.close();
    await provider?.shutdown();
  });

  it('turns a client’s acquisitions, releases, timeouts and losses into metrics', async () => {
    const m = inMemoryMetrics();
    provider = m.provider;
    client = createLockClient({ store: createMemoryStore() });
    const subscription = instrumentLocks(client.events$, { meter: m.meter });

    await client.withLock('orders:1', () => undefined);
    const holding = client.lock$('orders:2').subscribe();
    await expect(firstValueFrom(client.lock$('orders:2', { waitMs: 20 }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(points(await m.collect(), 'rxlock.lock.held').map((p) => p.value)).toEqual([1]);
    holding.unsubscribe();
    // A fixed lease that is kept past its leaseMs is lost with reason "expired".
    const expiring = client.lock$('reports', { leaseMs: 50 }).subscribe({ error: () => undefined });
    let collected = new Map<string, MetricData>();
    const settled = await eventually(async () => {
      collected = await m.collect();
      const releases = points(collected, 'rxlock.lock.releases').reduce((sum, p) => sum + p.value, 0);
      return releases === 2 && points(collected, 'rxlock.lock.losses').length === 1;
    });
    expect(settled).toBe(true);
    expiring.unsubscribe();

    const lock = (name: string) => ({ 'rxlock.lock.kind': 'lock', 'rxlock.lock.name': name });
    expect(points(collected, 'rxlock.lock.acquisitions')).toEqual([
      { attributes: lock('orders'), value: 2 },
      { attributes: lock('reports'), value: 1 },
    ]);
    expect(points(collected, 'rxlock.lock.releases')).toEqual([{ attributes: lock('orders'), value: 2 }]);
    expect(points(collected, 'rxlock.lock.timeouts')).toEqual([{ attributes: lock('orders'), value: 1 }]);
    expect(points(collected, 'rxlock.lock.losses')).toEqual([{ attributes: { ...lock('reports'), 'rxlock.lock.loss_reason': 'expired' }, value: 1 }]);
    expect(points(collected, 'rxlock.lock.held')).toEqual([
      { attributes: lock('orders'), value: 0 },
      { attributes: lock('reports'), value: 0 },
    ]);
    expect(points(collected, 'rxlock.lock.hold.duration')).toEqual([{ attributes: lock('orders'), value: 2 }]);
    expect(points(collected, 'rxlock.lock.wait.duration').reduce((sum, p) => sum + p.value, 0)).toBe(3);
    subscription.unsubscribe();
  });
});

describe('rxlock/otel is optional', () => {
  it('no module outside src/otel imports @opentelemetry, so importing rxlock does not need it', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (path !== join('src', 'otel')) walk(path);
        } else if (path.endsWith('.ts') && readFileSync(path, 'utf8').includes('@opentelemetry/')) {
          offenders.push(path);
        }
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
  });
});

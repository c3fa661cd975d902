import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { firstValueFrom, type Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, LockTimeoutError, type LockClient, type LockEvent } from '../src/index.js';
import { instrumentLocks } from '../src/otel/index.js';
import { createMemoryStore } from '../src/testing.js';
import { eventually } from './support/leaks.js';

describe('groupLock$ in events$ and rxlock/otel: kind groupLock', () => {
  let clients: LockClient[] = [];
  let subscriptions: Subscription[] = [];
  afterEach(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    subscriptions = [];
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
  });

  it('reports waiting, acquired, released and timeout with kind groupLock, and otel counts them under rxlock.lock.kind=groupLock', async () => {
    const store = createMemoryStore();
    const [holder, waiter] = [createLockClient({ store, clientId: 'a' }), createLockClient({ store, clientId: 'b' })];
    clients = [holder, waiter];
    const events: LockEvent[] = [];
    subscriptions.push(holder.events$.subscribe((event) => events.push(event)));
    subscriptions.push(waiter.events$.subscribe((event) => events.push(event)));
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    subscriptions.push(instrumentLocks(holder.events$, { meter: provider.getMeter('test') }));

    const held = holder.groupLock$('class_100', ['Jack_001', 'Mary_002']).subscribe();
    subscriptions.push(held);
    await expect(firstValueFrom(waiter.groupLock$('class_100', ['Mary_002'], { waitMs: 50 }))).rejects.toBeInstanceOf(LockTimeoutError);
    held.unsubscribe();
    expect(await eventually(() => events.some((event) => event.type === 'released'))).toBe(true);
    expect(events.map((event) => [event.type, 'kind' in event ? event.kind : undefined])).toEqual([
      ['acquired', 'groupLock'],
      ['waiting', 'groupLock'],
      ['timeout', 'groupLock'],
      ['released', 'groupLock'],
    ]);

    await reader.forceFlush();
    const metrics = new Map(
      (exporter.getMetrics().at(-1)?.scopeMetrics ?? []).flatMap((scope) => scope.metrics).map((metric) => [metric.descriptor.name, metric]),
    );
    for (const name of ['rxlock.lock.acquisitions', 'rxlock.lock.releases']) {
      expect(metrics.get(name)?.dataPoints.map((point) => [point.attributes, point.value])).toEqual([
        [{ 'rxlock.lock.kind': 'groupLock', 'rxlock.lock.name': 'class_100' }, 1],
      ]);
    }
    await provider.shutdown();
  });
});

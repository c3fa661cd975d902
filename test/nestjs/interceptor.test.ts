import { Controller, Get, Inject, INestApplication, Module, Param, Post, UseInterceptors } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LockInterceptor, LockKey, RxlockModule } from '../../src/nestjs/index.js';
import { activeTimers, eventually } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { Gate } from './support/gate.js';

const GATE = Symbol('gate');
type Params = { params: Record<string, string> };

@Controller('orders')
@UseInterceptors(LockInterceptor)
class OrdersController {
  constructor(@Inject(GATE) private readonly gate: { current: Gate }) {}

  @Post(':id/pay')
  @LockKey((context) => `order:${context.switchToHttp().getRequest<Params>().params['id']!}`, { waitMs: 0 })
  async pay(@Param('id') id: string): Promise<{ paid: string }> {
    await this.gate.current.pass();
    return { paid: id };
  }

  @Get(':id')
  status(@Param('id') id: string): { id: string } {
    return { id };
  }
}

/** A lock for every handler of the controller, for the global interceptor. */
@Controller('reports')
@LockKey('reports', { waitMs: 0 })
class ReportsController {
  constructor(@Inject(GATE) private readonly gate: { current: Gate }) {}

  @Get()
  async build(): Promise<string> {
    await this.gate.current.pass();
    return 'report';
  }
}

/** The handlers wait on `gate.current`: each test opens it. */
const gate = { current: new Gate() };

/** A feature module: LockInterceptor's dependencies come from the global RxlockModule. */
@Module({ controllers: [OrdersController], providers: [{ provide: GATE, useValue: gate }] })
class OrdersModule {}

describe('LockInterceptor over HTTP (express) on real Redis', () => {
  const server = redisServerForSuite();
  let admin: Redis;
  let timersBefore = 0;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    admin = server.client();
    await admin.ping();
    timersBefore = activeTimers();
  });
  afterEach(async () => {
    gate.current.open();
    for (const app of apps.splice(0)) await app.close();
    gate.current = new Gate();
    expect(await eventually(async () => (await admin.keys('*')).length === 0, 1_000)).toBe(true);
  });
  afterAll(async () => {
    expect(await admin.pubsub('CHANNELS')).toEqual([]);
    expect(await eventually(() => activeTimers() <= timersBefore, 2_000)).toBe(true);
  });

  /** An HTTP application on a free port, with its own lock client; returns its base URL. */
  async function listening(clientId: string, watchdogTimeoutMs = 30_000): Promise<string> {
    const moduleRef = await Test.createTestingModule({
      imports: [RxlockModule.forRoot({ redis: server.client(), clientId, watchdogTimeoutMs }), OrdersModule],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: ['error', 'warn'] });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  it('the loser of a waitMs: 0 race gets 409 with a JSON body; the winner answers once done and releases', async () => {
    const [one, two] = await Promise.all([listening('one'), listening('two')]);
    const first = fetch(`${one}/orders/7/pay`, { method: 'POST' });
    expect(await eventually(() => gate.current.entered === 1)).toBe(true);
    const second = await fetch(`${two}/orders/7/pay`, { method: 'POST' });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await second.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      code: 'LOCK_TIMEOUT',
      message: 'Another request holds the lock this request needs; try again later.',
    });
    expect(gate.current.entered).toBe(1);
    expect(await admin.exists('order:7')).toBe(1);
    gate.current.open();
    const won = await first;
    expect(won.status).toBe(201);
    expect(await won.json()).toEqual({ paid: '7' });
    expect(await admin.exists('order:7')).toBe(0);
  });

  it('requests for different names, and handlers without @LockKey, do not wait for each other', async () => {
    const base = await listening('one');
    const paying = [fetch(`${base}/orders/1/pay`, { method: 'POST' }), fetch(`${base}/orders/2/pay`, { method: 'POST' })];
    expect(await eventually(() => gate.current.entered === 2)).toBe(true);
    const status = await fetch(`${base}/orders/1`);
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ id: '1' });
    gate.current.open();
    expect((await Promise.all(paying)).map((response) => response.status)).toEqual([201, 201]);
  });

  it('as an APP_INTERCEPTOR, with @LockKey on the controller: every handler takes the lock', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RxlockModule.forRoot({ redis: server.client(), clientId: 'global' })],
      controllers: [ReportsController],
      providers: [
        { provide: GATE, useValue: gate },
        { provide: APP_INTERCEPTOR, useClass: LockInterceptor },
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: ['error', 'warn'] });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${String(((app.getHttpServer() as Server).address() as AddressInfo).port)}`;
    const first = fetch(`${base}/reports`);
    expect(await eventually(() => gate.current.entered === 1)).toBe(true);
    expect((await fetch(`${base}/reports`)).status).toBe(409);
    gate.current.open();
    expect((await first).status).toBe(200);
  });

  it('a lock lost while the handler runs answers 503 as soon as the watchdog finds out', async () => {
    const base = await listening('one', 300);
    const paying = fetch(`${base}/orders/9/pay`, { method: 'POST' });
    expect(await eventually(() => gate.current.entered === 1)).toBe(true);
    await admin.del('order:9');
    const response = await paying;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ statusCode: 503, code: 'LOCK_LOST' });
  });
});

/**
 * A small NestJS service that uses rxlock/nestjs: a charge endpoint that holds a per-account lock while it
 * runs (a concurrent charge of the same account gets 409), and a statement job that runs every second on
 * one instance only. Started by main.ts, which runs two instances of it; run alone with
 * `TSX_TSCONFIG_PATH=examples/nestjs/tsconfig.run.json REDIS_URL=redis://... node --import tsx examples/nestjs/service.ts`.
 */
import 'reflect-metadata';
import { Controller, Get, Inject, Injectable, Module, Param, ParseIntPipe, Post, Query, UseInterceptors, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Cron, CronExpression, ScheduleModule } from '@nestjs/schedule';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { LockInterceptor, LockKey, OnLeader, RxlockModule } from 'rxlock/nestjs';

/** The Redis connection this service keeps its data on (and rxlock its locks). */
const REDIS = Symbol('redis');
/** Prefix of this run's data keys, so that runs on a shared Redis never meet. */
const DATA = Symbol('data prefix');
const INSTANCE = process.env['INSTANCE'] ?? 'solo';

type Params = { params: { id: string } };

@Controller('accounts')
@UseInterceptors(LockInterceptor)
class AccountsController {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(DATA) private readonly data: string,
  ) {}

  /** Adds `cents` to the balance: a read, some work, a write. The lock keeps concurrent charges from losing updates. */
  @Post(':id/charge')
  @LockKey((context) => `example:account:${context.switchToHttp().getRequest<Params>().params.id}`, { waitMs: 0 })
  async charge(@Param('id') id: string, @Query('cents', ParseIntPipe) cents: number): Promise<{ balance: number; by: string }> {
    const key = `${this.data}:balance:${id}`;
    const balance = Number((await this.redis.get(key)) ?? 0);
    await sleep(150);
    await this.redis.set(key, balance + cents);
    return { balance: balance + cents, by: INSTANCE };
  }

  @Get(':id')
  async balance(@Param('id') id: string): Promise<{ balance: number }> {
    return { balance: Number((await this.redis.get(`${this.data}:balance:${id}`)) ?? 0) };
  }
}

@Injectable()
class Statements {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(DATA) private readonly data: string,
  ) {}

  /** Every second, on the leader only: records which instance ran it. */
  @Cron(CronExpression.EVERY_SECOND)
  @OnLeader('example:statements')
  async run(): Promise<void> {
    await this.redis.rpush(`${this.data}:statements`, INSTANCE);
  }
}

const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');

@Module({
  imports: [RxlockModule.forRoot({ redis, clientId: `example-${INSTANCE}`, watchdogTimeoutMs: 3_000 }), ScheduleModule.forRoot()],
  controllers: [AccountsController],
  providers: [Statements, { provide: REDIS, useValue: redis }, { provide: DATA, useValue: process.env['DATA_PREFIX'] ?? 'rxlock-example' }],
})
class AppModule implements OnApplicationShutdown {
  // rxlock closed its client (releasing every lock) in beforeApplicationShutdown, before this runs.
  async onApplicationShutdown(): Promise<void> {
    await redis.quit();
  }
}

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
app.enableShutdownHooks();
await app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
if (process.send !== undefined) process.send({ type: 'listening', port });
else console.log(`${INSTANCE} listening on http://127.0.0.1:${port}`);

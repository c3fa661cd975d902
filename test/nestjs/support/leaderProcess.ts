/**
 * A NestJS application in a child process, for the failover test: an `@Interval` and a `@Cron` job behind
 * `@OnLeader` that tell the parent every time they run. The parent forks this file through tsx (with
 * `TSX_TSCONFIG_PATH` naming test/nestjs/tsconfig.json, for legacy decorators) and kills or stops it;
 * shutdown hooks are on, as in production. Run as a child, it starts the application; imported, it only
 * exports the parent's side.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the child tells its parent. */
export type LeaderMessage =
  { readonly type: 'ready'; readonly instance: string } | { readonly type: 'tick'; readonly instance: string; readonly job: 'interval' | 'cron' };

/** Settings the parent passes in the environment. */
export interface LeaderProcessSettings {
  readonly instance: string;
  readonly redisPort: number;
  readonly watchdogTimeoutMs: number;
}

const entry = fileURLToPath(import.meta.url);

/** Forks one application; its stderr is collected so that a crash on shutdown shows. */
export function spawnLeaderProcess(settings: LeaderProcessSettings): { child: ChildProcess; stderr: () => string } {
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
      LEADER_INSTANCE: settings.instance,
      LEADER_REDIS_PORT: String(settings.redisPort),
      LEADER_WATCHDOG_MS: String(settings.watchdogTimeoutMs),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

async function main(): Promise<void> {
  const { Inject, Injectable, Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { Cron, Interval, ScheduleModule } = await import('@nestjs/schedule');
  const { Redis } = await import('ioredis');
  const { OnLeader, RxlockModule } = await import('../../../src/nestjs/index.js');
  const instance = process.env['LEADER_INSTANCE']!;
  const send = (message: LeaderMessage): void => {
    if (process.connected) process.send?.(message);
  };
  const redis = new Redis({ host: '127.0.0.1', port: Number(process.env['LEADER_REDIS_PORT']), lazyConnect: false });

  const INSTANCE = Symbol('instance');

  @Injectable()
  class Sweeper {
    constructor(@Inject(INSTANCE) private readonly name: string) {}

    @Interval(25)
    @OnLeader('sweeper')
    sweep(): void {
      send({ type: 'tick', instance: this.name, job: 'interval' });
    }

    @Cron('* * * * * *')
    @OnLeader('sweeper')
    cron(): void {
      send({ type: 'tick', instance: this.name, job: 'cron' });
    }
  }

  @Module({
    imports: [RxlockModule.forRoot({ redis, clientId: instance, watchdogTimeoutMs: Number(process.env['LEADER_WATCHDOG_MS']) }), ScheduleModule.forRoot()],
    providers: [Sweeper, { provide: INSTANCE, useValue: instance }],
  })
  class AppModule {
    // Closed after RxlockModule closed its client (beforeApplicationShutdown), as the docs advise.
    async onApplicationShutdown(): Promise<void> {
      await redis.quit();
    }
  }

  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.init();
  send({ type: 'ready', instance });
}

if (process.argv[1] === entry) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

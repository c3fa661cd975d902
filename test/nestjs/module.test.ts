import 'reflect-metadata';
import { Inject, Injectable, Module, Scope } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { Observable, of } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLockClient, LockLostError, type LockClient } from '../../src/index.js';
import { InjectLockClient, LOCK_CLIENT, OnLeader, RxlockModule, RxlockRuntime, WithLock, type RxlockModuleOptions } from '../../src/nestjs/index.js';
import { createMemoryStore } from '../../src/testing.js';
import { activeTimers, eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { Gate } from './support/gate.js';

const GATE = Symbol('gate');

@Injectable()
class Locked {
  constructor(
    @InjectLockClient() readonly client: LockClient,
    @Inject(GATE) private readonly gate: { current: Gate },
  ) {}

  @WithLock('section')
  async section(): Promise<string> {
    await this.gate.current.pass();
    return 'done';
  }

  @OnLeader('leader')
  lead(): string {
    return 'led';
  }
}

const gate = { current: new Gate() };

@Module({ providers: [{ provide: GATE, useValue: gate }], exports: [GATE] })
class GateModule {}

const REDIS_URL = Symbol('redis url');

describe('RxlockModule on real Redis: who owns what, and what shutdown does', () => {
  const server = redisServerForSuite();
  let admin: Redis;
  let timersBefore = 0;
  let apps: TestingModule[] = [];

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

  async function start(rxlock: ReturnType<typeof RxlockModule.forRoot>): Promise<TestingModule> {
    const app = await Test.createTestingModule({ imports: [rxlock, GateModule], providers: [Locked] }).compile();
    apps.push(app);
    await app.init();
    return app;
  }

  it('forRoot({ redis }): the module creates the client and closes it on shutdown, never the Redis connection it was given', async () => {
    const redis = server.client();
    const app = await start(RxlockModule.forRoot({ redis, clientId: 'owned' }));
    const client = app.get<LockClient>(LOCK_CLIENT);
    expect(app.get(Locked).client).toBe(client);
    gate.current.open();
    expect(await app.get(Locked).section()).toBe('done');
    await app.close();
    apps = [];
    // closed: a new acquisition fails at once
    await expect(client.withLock('x', () => 1)).rejects.toThrow(/closed/);
    expect(await redis.ping()).toBe('PONG');
  });

  it('forRootAsync({ imports, inject, useFactory }) gets its options from another module', async () => {
    @Module({ providers: [{ provide: REDIS_URL, useValue: server.url }], exports: [REDIS_URL] })
    class ConfigModule {}
    let given: string | undefined;
    const app = await start(
      RxlockModule.forRootAsync({
        imports: [ConfigModule],
        inject: [REDIS_URL],
        useFactory: (url: string): RxlockModuleOptions => {
          given = url;
          return { redis: server.client({ port: Number(new URL(url).port) }), clientId: 'async' };
        },
      }),
    );
    gate.current.open();
    expect(await app.get(Locked).section()).toBe('done');
    expect(given).toBe(server.url);
    expect(app.get<LockClient>(LOCK_CLIENT).clientId).toBe('async');
  });

  it('forRoot({ client }): the module uses your client, hands leadership back on shutdown and leaves the client open', async () => {
    const client = createLockClient({ redis: server.client(), clientId: 'mine' });
    const app = await start(RxlockModule.forRoot({ client }));
    expect(app.get<LockClient>(LOCK_CLIENT)).toBe(client);
    expect(await eventually(() => app.get(RxlockRuntime).isLeader('leader'))).toBe(true);
    expect(app.get(Locked).lead()).toBe('led');
    expect(await client.isLocked('leader')).toBe(true);
    await app.close();
    apps = [];
    expect(await eventually(async () => !(await client.isLocked('leader')))).toBe(true);
    expect(await client.withLock('still-open', () => 'yes')).toBe('yes');
    await client.close();
  });

  it('shutdown waits for a locked call in flight to finish, then releases and closes', async () => {
    const app = await start(RxlockModule.forRoot({ redis: server.client(), clientId: 'drain', shutdownGraceMs: 5_000 }));
    const running = app.get(Locked).section();
    expect(await eventually(() => gate.current.entered === 1)).toBe(true);
    const closing = app.close();
    apps = [];
    await sleep(100);
    expect(await admin.exists('section')).toBe(1);
    gate.current.open();
    await expect(running).resolves.toBe('done');
    await closing;
    expect(await admin.exists('section')).toBe(0);
  });

  it('a call that outlasts shutdownGraceMs fails with LockLostError (closed) and its lock is released', async () => {
    const app = await start(RxlockModule.forRoot({ redis: server.client(), clientId: 'grace', shutdownGraceMs: 100 }));
    const running = app.get(Locked).section();
    const failed = expect(running).rejects.toSatisfy((error) => error instanceof LockLostError && error.reason === 'closed');
    expect(await eventually(() => gate.current.entered === 1)).toBe(true);
    await app.close();
    apps = [];
    await failed;
    expect(await admin.exists('section')).toBe(0);
  });
});

describe('RxlockModule: bad options and misuse are typed errors', () => {
  const store = createMemoryStore();

  it('bad module options fail the application’s start, naming the option', async () => {
    const compile = (options: RxlockModuleOptions) => Test.createTestingModule({ imports: [RxlockModule.forRoot(options)] }).compile();
    await expect(compile({ store, shutdownGraceMs: -1 })).rejects.toThrow(RangeError);
    await expect(compile({ store, shutdownGraceMs: -1 })).rejects.toThrow(/"shutdownGraceMs"/);
    await expect(compile({ store, watchdogTimeoutMs: 5 })).rejects.toThrow(/"watchdogTimeoutMs"/);
    await expect(compile({ store, ...({ lockTimeout: 5 } as object) })).rejects.toThrow(/unknown option "lockTimeout"/);
    const client = createLockClient({ store });
    await expect(compile({ client, ...({ keyPrefix: 'x' } as object) })).rejects.toThrow(/"keyPrefix"/);
    await expect(compile({ client: {} as LockClient })).rejects.toThrow(/option "client" must be a LockClient/);
    await client.close();
  });

  it('decorators refuse bad options when the class is defined', () => {
    const define = (decorate: () => void) => decorate;
    expect(
      define(() => {
        class C {
          @WithLock('x', { kind: 'mutex' as 'lock' })
          async m(): Promise<void> {}
        }
        return C;
      }),
    ).toThrow(/option "kind" must be one of lock, fair, read, write, semaphore, leasedSemaphore, multi, got "mutex"/);
    expect(
      define(() => {
        class C {
          @WithLock('x', { wait: 5 } as object)
          async m(): Promise<void> {}
        }
        return C;
      }),
    ).toThrow(/@WithLock on C\.m: unknown option "wait"/);
    expect(
      define(() => {
        class C {
          @WithLock('x', { kind: 'semaphore', permits: 0 })
          async m(): Promise<void> {}
        }
        return C;
      }),
    ).toThrow(RangeError);
    expect(
      define(() => {
        class C {
          @WithLock('x', { kind: 'multi' } as never)
          async m(): Promise<void> {}
        }
        return C;
      }),
    ).toThrow(/kind "multi" needs an array of lock names/);
    expect(
      define(() => {
        class C {
          @WithLock('x', { fencing: true, kind: 'read' } as never)
          async m(): Promise<void> {}
        }
        return C;
      }),
    ).toThrow(/unknown option "fencing"/);
    expect(
      define(() => {
        class C {
          @WithLock('x', { returns: 'observable' })
          m(): Observable<number> {
            return of(1);
          }
          @WithLock('y', { returns: 'promise' })
          n(): Promise<number> {
            return Promise.resolve(1);
          }
        }
        return C;
      }),
    ).not.toThrow();
    expect(
      define(() => {
        class C {
          @OnLeader('')
          m(): void {}
        }
        return C;
      }),
    ).toThrow(/@OnLeader on C\.m: bad name "" \(string of length 0\): it is empty/);
  });

  it('a method whose result form cannot be told without calling it is refused at once', () => {
    // Without emitDecoratorMetadata's return type (a function built at run time), a non-async method is ambiguous.
    const target = { constructor: { name: 'Built' } };
    const descriptor: PropertyDescriptor = { value: () => of(1), writable: true, configurable: true };
    expect(() => WithLock('x')(target, 'm', descriptor)).toThrow(/@WithLock on Built\.m: cannot tell whether the method returns a Promise or an Observable/);
  });

  it('a bad name from the name function, and a call on an object no module set up, fail the call with a TypeError', async () => {
    class Plain {
      @WithLock((id: unknown) => id as string)
      // Not async: told a Promise by its declared return type (emitDecoratorMetadata).
      m(id: unknown): Promise<unknown> {
        return Promise.resolve(id);
      }
    }
    await expect(new Plain().m('x')).rejects.toThrow(/@WithLock on Plain\.m: called on an object that RxlockModule did not set up/);
    const app = await Test.createTestingModule({ imports: [RxlockModule.forRoot({ store })], providers: [Plain] }).compile();
    await app.init();
    await expect(app.get(Plain).m(42)).rejects.toThrow(/@WithLock on Plain\.m: the lock name must be a string, got 42/);
    await expect(app.get(Plain).m('')).rejects.toThrow(TypeError);
    await app.close();
  });

  it('a request-scoped provider’s decorated method fails with a TypeError: the module sets up singletons only', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @WithLock('x')
      async m(): Promise<void> {}
    }
    const app = await Test.createTestingModule({ imports: [RxlockModule.forRoot({ store })], providers: [PerRequest] })
      .setLogger({ log: () => undefined, warn: () => undefined, error: () => undefined })
      .compile();
    await app.init();
    const instance = await app.resolve(PerRequest);
    await expect(instance.m()).rejects.toThrow(/@WithLock on PerRequest\.m: called on an object that RxlockModule did not set up/);
    await app.close();
  });

  it('two RxlockModules in one application are refused at start', async () => {
    class Twice {
      @WithLock('x')
      async m(): Promise<void> {}
    }
    @Module({ imports: [RxlockModule.forRoot({ store, isGlobal: false })], providers: [Twice] })
    class One {}
    @Module({ imports: [RxlockModule.forRoot({ store, isGlobal: false }), One] })
    class Two {}
    const app = await Test.createTestingModule({ imports: [Two] }).compile();
    await expect(app.init()).rejects.toThrow(/rxlock: Twice is set up by two RxlockModules/);
    // Nothing to close: the clients are on a memory store and hold nothing; Nest's close() would rethrow the init error.
  });
});

import 'reflect-metadata';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { firstValueFrom, NEVER, of, type Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../../src/index.js';
import { LockInterceptor, LockKey, RxlockModule, RxlockRuntime } from '../../src/nestjs/index.js';
import { createMemoryStore } from '../../src/testing.js';

class Handlers {
  @LockKey((context) => `topic:${String(context.getArgByIndex(0))}`, { waitMs: 0 })
  consume(): void {}
}

/** The handler function, as Nest's router passes it (what @LockKey stored its metadata on). */
const consume: unknown = Object.getOwnPropertyDescriptor(Handlers.prototype, 'consume')?.value;

/** The ExecutionContext of a `Handlers.consume` call over `type`, whose first argument is `topic`. */
function contextOf(type: string, topic: string): ExecutionContext {
  return {
    getType: () => type,
    getHandler: () => consume,
    getClass: () => Handlers,
    getArgByIndex: (index: number) => (index === 0 ? topic : undefined),
  } as unknown as ExecutionContext;
}

const handling = (result: Observable<unknown>): CallHandler => ({ handle: () => result });

describe('LockInterceptor outside HTTP (memory store)', () => {
  let app: TestingModule | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('holds the lock over an RPC handler and lets LockTimeoutError through unchanged, not as an HTTP error', async () => {
    app = await Test.createTestingModule({ imports: [RxlockModule.forRoot({ store: createMemoryStore() })] }).compile();
    await app.init();
    const interceptor = new LockInterceptor(new Reflector(), app.get(RxlockRuntime));
    const holding = interceptor.intercept(contextOf('rpc', 'orders'), handling(NEVER)).subscribe();
    try {
      await expect(firstValueFrom(interceptor.intercept(contextOf('rpc', 'orders'), handling(of('second'))))).rejects.toBeInstanceOf(LockTimeoutError);
      // another topic is another lock
      await expect(firstValueFrom(interceptor.intercept(contextOf('rpc', 'billing'), handling(of('other'))))).resolves.toBe('other');
    } finally {
      holding.unsubscribe();
    }
    await expect(firstValueFrom(interceptor.intercept(contextOf('rpc', 'orders'), handling(of('after'))))).resolves.toBe('after');
  });
});

import 'reflect-metadata';
import { ConsoleLogger, type ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { RxlockModule, type RxlockModuleOptions } from '../../../src/nestjs/index.js';

/** The injection token of the Redis connection the services under test keep their data on. */
export const DATA = Symbol('test data connection');

/**
 * An initialised application: `RxlockModule.forRoot(options)` plus `metadata`, with `DATA` bound to `data`.
 * Close it with `close()` (Nest's shutdown hooks run).
 */
export async function startApp(options: RxlockModuleOptions, data: Redis, metadata: ModuleMetadata = {}): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    ...metadata,
    imports: [RxlockModule.forRoot(options), ...(metadata.imports ?? [])],
    providers: [{ provide: DATA, useValue: data }, ...(metadata.providers ?? [])],
  })
    .setLogger(new ConsoleLogger('test', { logLevels: ['error', 'warn'] }))
    .compile();
  await moduleRef.init();
  return moduleRef;
}

import { ConfigurableModuleBuilder, Module, type ConfigurableModuleAsyncOptions, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { createLockClient, type LockClient } from '../index.js';
import { clientOptionsOf, moduleSettings, type RxlockModuleOptions } from './RxlockModuleOptions.js';
import { RxlockRuntime } from './RxlockRuntime.js';
import { LOCK_CLIENT } from './tokens.js';

/** Options of `RxlockModule.forRoot` about the module's definition. */
export interface RxlockModuleExtras {
  /**
   * Register the module as global, so that `LOCK_CLIENT` and `LockInterceptor` resolve in every module. A
   * global module also starts first and shuts down last.
   * @default true
   */
  isGlobal?: boolean | undefined;
}

const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } = new ConfigurableModuleBuilder<RxlockModuleOptions>({ moduleName: 'Rxlock' })
  .setClassMethodName('forRoot')
  .setExtras<RxlockModuleExtras>({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal ?? true }))
  .build();

/** Options of `RxlockModule.forRootAsync`: `useFactory` + `inject` (+ `imports`), `useClass` or `useExisting`. */
export type RxlockModuleAsyncOptions = ConfigurableModuleAsyncOptions<RxlockModuleOptions> & RxlockModuleExtras;

const clientProvider: Provider = {
  provide: LOCK_CLIENT,
  useFactory: (options: RxlockModuleOptions): LockClient => {
    moduleSettings(options);
    const clientOptions = clientOptionsOf(options);
    return clientOptions === undefined ? (options.client as LockClient) : createLockClient(clientOptions);
  },
  inject: [MODULE_OPTIONS_TOKEN],
};

const runtimeProvider: Provider = {
  provide: RxlockRuntime,
  useFactory: (options: RxlockModuleOptions, client: LockClient, discovery: DiscoveryService, scanner: MetadataScanner) =>
    new RxlockRuntime(client, options.client === undefined, moduleSettings(options), options.scheduler, discovery, scanner),
  inject: [MODULE_OPTIONS_TOKEN, LOCK_CLIENT, DiscoveryService, MetadataScanner],
};

/**
 * rxlock in a NestJS application: provides the `LockClient` (inject it with `@InjectLockClient()` or
 * `@Inject(LOCK_CLIENT)`), sets up `@WithLock` and `@OnLeader` methods, and backs `LockInterceptor`.
 * On shutdown it hands leaderships over first (`onModuleDestroy`), then waits up to `shutdownGraceMs` for
 * locked calls in flight and closes the client it created (`beforeApplicationShutdown`), which releases
 * whatever is still held, before any `onApplicationShutdown` hook runs: close your Redis connection there.
 */
export class RxlockModule extends ConfigurableModuleClass {
  /** The module with a client created from `createLockClient` options (or your own `{ client }`). */
  static override forRoot(options: RxlockModuleOptions & RxlockModuleExtras): DynamicModule {
    return super.forRoot(options);
  }

  /** The module with options from a factory (`useFactory`, `inject`, `imports`), a class or an existing provider. */
  static override forRootAsync(options: RxlockModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }
}

Module({ imports: [DiscoveryModule], providers: [clientProvider, runtimeProvider], exports: [LOCK_CLIENT, RxlockRuntime] })(RxlockModule);

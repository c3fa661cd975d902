import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import {
  BehaviorSubject,
  defer,
  EMPTY,
  filter,
  finalize,
  firstValueFrom,
  race,
  retry,
  Subscription,
  tap,
  timer,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import { ClientClosedError, LockLostError, monotonicScheduler, withLease$, type Lease, type LockClient } from '../index.js';
import { leases$, type LockKindOptions } from './lockKinds.js';
import type { LockRuntime } from './LockRuntime.js';
import { lockedMethodMark, RUNTIME, type LeaderCampaign, type LockedMethodMark } from './methodWrapping.js';
import type { ModuleSettings } from './RxlockModuleOptions.js';

/**
 * The module's state in one application: its client, the leaderships its `@OnLeader` methods campaign
 * for, and the locked calls in flight. It sets itself on the application's decorated instances, so that
 * two applications in one process each use their own client.
 */
export class RxlockRuntime implements LockRuntime, OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  /** The application's client. */
  readonly client: LockClient;
  readonly #ownsClient: boolean;
  readonly #settings: ModuleSettings;
  readonly #scheduler: SchedulerLike;
  readonly #discovery: DiscoveryService;
  readonly #scanner: MetadataScanner;
  readonly #logger = new Logger('RxlockModule');
  readonly #campaigns = new Map<string, LeaderCampaign>();
  readonly #terms = new Map<string, Lease>();
  readonly #leading = new Subscription();
  readonly #inFlight = new BehaviorSubject(0);
  #stopped = false;

  /** Created by `RxlockModule`. */
  constructor(
    client: LockClient,
    ownsClient: boolean,
    settings: ModuleSettings,
    scheduler: SchedulerLike | undefined,
    discovery: DiscoveryService,
    scanner: MetadataScanner,
  ) {
    this.client = client;
    this.#ownsClient = ownsClient;
    this.#settings = settings;
    this.#scheduler = scheduler ?? monotonicScheduler;
    this.#discovery = discovery;
    this.#scanner = scanner;
  }

  /** Finds the decorated methods and sets this runtime on their instances. */
  onModuleInit(): void {
    for (const wrapper of [...this.#discovery.getControllers(), ...this.#discovery.getProviders()]) {
      const instance: unknown = wrapper.instance;
      if (instance === null || typeof instance !== 'object') continue;
      const marks = this.#marksOf(instance);
      if (marks.length === 0) continue;
      if (!wrapper.isDependencyTreeStatic()) {
        this.#logger.warn(
          `${String(wrapper.name)} has rxlock-decorated methods but is not a singleton (request-scoped or transient); they will fail when called`,
        );
        continue;
      }
      const existing = (instance as { [RUNTIME]?: unknown })[RUNTIME];
      if (existing !== undefined && existing !== this) {
        throw new Error(
          `rxlock: ${String(wrapper.name)} is set up by two RxlockModules; import RxlockModule.forRoot() (or forRootAsync()) once per application`,
        );
      }
      Object.defineProperty(instance, RUNTIME, { value: this, configurable: true });
      for (const campaign of marks.flatMap((mark) => mark.leaders)) this.#addCampaign(campaign);
    }
  }

  /** Starts campaigning for every `@OnLeader` name. */
  onApplicationBootstrap(): void {
    if (this.#stopped) return;
    for (const campaign of this.#campaigns.values()) this.#leading.add(this.#campaign$(campaign).subscribe());
  }

  /** Hands leadership over at the start of the shutdown, so that another instance takes over at once. */
  onModuleDestroy(): void {
    this.#stopped = true;
    this.#leading.unsubscribe();
    this.#terms.clear();
  }

  /** Waits for the locked calls in flight (up to `shutdownGraceMs`), then closes the client if the module created it. */
  async beforeApplicationShutdown(): Promise<void> {
    this.onModuleDestroy();
    const idle = this.#inFlight.pipe(filter((count) => count === 0));
    await firstValueFrom(race(idle, timer(this.#settings.shutdownGraceMs, this.#scheduler)));
    if (this.#ownsClient) await this.client.close();
  }

  /** Runs `work` inside a lease of the kind `options` name, counted as in flight until it ends (for `@WithLock` and `LockInterceptor`). */
  locked$<T>(options: LockKindOptions | undefined, name: string | readonly string[], work: (lease: Lease) => ObservableInput<T>): Observable<T> {
    return defer(() => {
      this.#inFlight.next(this.#inFlight.value + 1);
      return withLease$(leases$(this.client, options, name), work).pipe(finalize(() => this.#inFlight.next(this.#inFlight.value - 1)));
    });
  }

  /** The lease of this instance's current leadership term for `name`, if any (read `held` before trusting it). */
  leaderLease(name: string): Lease | undefined {
    return this.#terms.get(name);
  }

  /** Counts a leader-only call's promise as in flight until it settles, so that shutdown waits for it (for `@OnLeader`). */
  track<T>(result: T): T {
    const thenable = result as { then?: unknown } | null | undefined;
    if (thenable === null || thenable === undefined || typeof thenable.then !== 'function') return result;
    this.#inFlight.next(this.#inFlight.value + 1);
    const done = (): void => this.#inFlight.next(this.#inFlight.value - 1);
    (result as PromiseLike<unknown>).then(done, done);
    return result;
  }

  /** Whether this instance leads `name` now (an `@OnLeader` name of this application). */
  isLeader(name: string): boolean {
    return this.#terms.get(name)?.held === true;
  }

  #marksOf(instance: object): LockedMethodMark[] {
    const prototype: unknown = Object.getPrototypeOf(instance);
    if (prototype === null || typeof prototype !== 'object') return [];
    const marks: LockedMethodMark[] = [];
    for (const name of this.#scanner.getAllMethodNames(prototype)) {
      const mark = lockedMethodMark(methodAt(prototype, name));
      if (mark !== undefined) marks.push(mark);
    }
    return marks;
  }

  #addCampaign(campaign: LeaderCampaign): void {
    const known = this.#campaigns.get(campaign.name);
    if (known === undefined) {
      this.#campaigns.set(campaign.name, campaign);
      return;
    }
    if (
      known.fencing !== campaign.fencing ||
      known.recampaignDelayMs !== campaign.recampaignDelayMs ||
      known.watchdogTimeoutMs !== campaign.watchdogTimeoutMs
    ) {
      throw new TypeError(`rxlock: ${campaign.where} and ${known.where} campaign for "${campaign.name}" with different options; give them the same`);
    }
  }

  /** One name's campaign: every term's lease is recorded; a failure other than a lost term is logged and retried. */
  #campaign$(campaign: LeaderCampaign): Observable<Lease> {
    const { name } = campaign;
    const { fencing, recampaignDelayMs, watchdogTimeoutMs } = campaign;
    return this.client.leader$(name, { fencing, recampaignDelayMs, watchdogTimeoutMs }).pipe(
      tap((lease) => this.#terms.set(name, lease)),
      retry({
        delay: (error: unknown) => {
          if (this.#stopped || error instanceof ClientClosedError || (error instanceof LockLostError && error.reason === 'closed')) return EMPTY;
          const reason = error instanceof Error ? error.message : String(error);
          this.#logger.warn(`the campaign for leader "${name}" failed (${reason}); campaigning again in ${this.#settings.leaderRetryMs} ms`);
          return timer(this.#settings.leaderRetryMs, this.#scheduler);
        },
      }),
    );
  }
}

/** The function a prototype chain holds under `name`, without calling getters. */
function methodAt(prototype: object, name: string): unknown {
  for (let at: object | null = prototype; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(at, name);
    if (descriptor !== undefined) return descriptor.value;
  }
  return undefined;
}

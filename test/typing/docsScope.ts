// What the docs' code blocks use without declaring it: a client and connections set up earlier on the page,
// and the reader's own work. docsExamples.test.ts makes every export here a global of the blocks it checks,
// each typed as a block expects a reader's code to be; a block's own imports take precedence. It compiles
// this file with its imports of ../../src/index.js read as imports of `rxlock`.
import type { Observable } from 'rxjs';
import type { Cluster, Redis } from 'ioredis';
import type { Lease, LockClient, MultiLease } from '../../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-deprecated -- rxjs deprecates only switchMap's resultSelector overload
export { lastValueFrom, switchMap, take } from 'rxjs';
export { Redis } from 'ioredis';
export { createLockClient, LockLostError, LockTimeoutError, withLease$ } from '../../src/index.js';

export declare const redis: Redis | Cluster;
export declare const redisA: Redis, redisB: Redis, redisC: Redis, redisD: Redis, redisE: Redis;
export declare const client: LockClient;
export declare const withLock: LockClient['withLock'];
export declare const leader$: LockClient['leader$'];
export declare const lock$: LockClient['lock$'];
export declare const withLock$: LockClient['withLock$'];
export declare const readLock$: LockClient['readLock$'];
export declare const writeLock$: LockClient['writeLock$'];
export declare const locks: LockClient;
export declare function expect(actual: unknown): { toEqual(expected: unknown): void };

interface Invoice {
  readonly id: number;
}

export declare function processOrders(lease: Lease): Observable<number>;
export declare function computeTotal(options: { signal: AbortSignal }): Promise<number>;
export declare function build(options: { signal: AbortSignal }): Promise<string>;
export declare function rebuild(): Promise<void>;
export declare function runDuties(lease: Lease): Observable<void>;
export declare function appendEntries$(lease: Lease): Observable<void>;
export declare function retryLater(): void;
export declare const serveReads$: Observable<void>;
export declare const rebuild$: Observable<void>;
export declare const render$: Observable<Uint8Array>;
export declare const serve$: Observable<void>;
export declare function onLost(error: unknown): void;
export declare function load(id: number): Promise<Invoice>;
export declare const store: { save(invoice: Invoice, options: { fence: number | undefined }): Promise<void> };
export declare const from: string, to: string;
export declare function transfer$(from: string, to: string, lease: MultiLease): Observable<void>;
export declare function consumeEmails$(lease: Lease): Observable<void>;
export declare const applyPayments$: Observable<void>;
export declare function recompute(options: { signal: AbortSignal }): Promise<number>;
export declare function renderPdf(): Promise<Uint8Array>;
export declare function book$(seats: readonly string[]): Observable<void>;
export declare function sendReport(): Promise<void>;
export declare function renderTile$(lease: Lease): Observable<Uint8Array>;

// docs/nestjs.md: @nestjs/config's module and service (not a dependency here), and the page's first service.
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- a stand-in: the blocks only pass it to `imports`
export declare class ConfigModule {}
export declare class ConfigService {
  getOrThrow(key: string): string;
}
export declare class Billing {
  charge(accountId: string, cents: number): Promise<void>;
}

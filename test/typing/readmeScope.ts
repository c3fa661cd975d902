// What the README's examples use without declaring it: the earlier examples' client and connections, and
// the reader's own work. readmeExamples.test.ts makes every export here a global of the examples it checks,
// each typed as the example expects a reader's code to be; an example's own imports take precedence.
import type { Observable } from 'rxjs';
import type { Cluster, Redis } from 'ioredis';
import type { Lease, LockClient, MultiLease } from '../../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-deprecated -- rxjs deprecates only switchMap's resultSelector overload
export { lastValueFrom, switchMap, take } from 'rxjs';
export { Redis } from 'ioredis';
export { createLockClient, LockTimeoutError } from '../../src/index.js';

export declare const redis: Redis | Cluster;
export declare const redisA: Redis, redisB: Redis, redisC: Redis, redisD: Redis, redisE: Redis;
export declare const client: LockClient;
export declare const withLock: LockClient['withLock'];
export declare const leader$: LockClient['leader$'];
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

/**
 * Compile-time checks of the decorators' types, run by `npm run typecheck` (tsconfig.nestjs.json): each
 * `@ts-expect-error` must be an error, the rest must compile. Nothing here runs.
 */
import { Observable, of } from 'rxjs';
import { LockKey, OnLeader, WithLock } from '../../src/nestjs/index.js';

export class Checked {
  // The name function's parameters are the method's first ones.
  @WithLock((accountId: string) => `account:${accountId}`, { waitMs: 2_000 })
  async charge(accountId: string, cents: number): Promise<number> {
    return Promise.resolve(accountId.length + cents);
  }

  // @ts-expect-error: the name function takes a number where the method takes a string
  @WithLock((accountId: number) => `account:${accountId}`)
  async refund(accountId: string): Promise<string> {
    return Promise.resolve(accountId);
  }

  @WithLock('observable')
  watch$(): Observable<number> {
    return of(1);
  }

  // @ts-expect-error: neither a Promise nor an Observable: there is no result to hold the lock for
  @WithLock('sync')
  count(): number {
    return 1;
  }

  @WithLock('pool', { kind: 'semaphore', permits: 2 })
  async pooled(): Promise<void> {}

  // @ts-expect-error: permits belong to the semaphores
  @WithLock('mutex', { permits: 2 })
  async notPooled(): Promise<void> {}

  // @ts-expect-error: read locks have no fencing tokens
  @WithLock('rw', { kind: 'read', fencing: true })
  async fencedRead(): Promise<void> {}

  @WithLock((from: string, to: string) => [from, to], { kind: 'multi' })
  async transfer(from: string, to: string): Promise<string> {
    return Promise.resolve(`${from}->${to}`);
  }

  // @ts-expect-error: kind 'multi' takes an array of names
  @WithLock('one', { kind: 'multi' })
  async multiOfOne(): Promise<void> {}

  @OnLeader('sweeper', { recampaignDelayMs: 100 })
  async sweep(): Promise<void> {}

  @LockKey((context) => context.getHandler().name, { waitMs: 0 })
  handler(): string {
    return 'ok';
  }
}

@LockKey('whole-controller', { kind: 'write' })
export class WholeController {}

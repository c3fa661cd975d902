import calculateSlot from 'cluster-key-slot';
import { merge, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Reply, Script } from '../store/Script.js';
import type { ChannelEvent, RunOptions, ScriptCall, StoreConnection } from '../store/Store.js';
import { StoreError } from '../store/StoreError.js';
import type { Ballot } from './quorum.js';
import { quorumOf } from './quorum.js';
import type { Verdict, Vote, VoteContext } from './lockVotes.js';

/** The same script with its reply left raw, for votes; one per script. */
const rawForms = new WeakMap<Script<unknown>, Script<Reply>>();
function rawForm(script: Script<unknown>): Script<Reply> {
  let raw = rawForms.get(script);
  if (raw === undefined) rawForms.set(script, (raw = { ...script, parse: (reply) => reply }));
  return raw;
}

export interface QuorumSettings {
  /** How long one instance may take to answer before its ballot counts as failed. */
  readonly instanceTimeoutMs: number;
  readonly driftFactor: number;
  readonly driftMs: number;
}

/**
 * One store connection over N independent Redis masters (Redlock): every script runs on all of them at once,
 * and a `Vote` per script turns their replies into the one reply the engine expects. The engine (acquire loop,
 * watchdog, leases, wake-ups) runs unchanged on top: an acquire is granted by a majority within its validity,
 * a renewal keeps a hold only on a majority, a release counts on a majority, and a wake-up from any instance
 * wakes waiters. Scripts without a vote (every primitive but the lock) are refused.
 */
export class QuorumConnection implements StoreConnection {
  readonly publishCommand = 'publish' as const;
  readonly #instances: readonly StoreConnection[];
  readonly #votes: ReadonlyMap<string, Vote>;
  readonly #scheduler: SchedulerLike;
  readonly #settings: QuorumSettings;
  readonly #quorum: number;
  readonly #clustered: boolean;

  constructor(instances: readonly StoreConnection[], votes: ReadonlyMap<string, Vote>, scheduler: SchedulerLike, settings: QuorumSettings, clustered: boolean) {
    this.#instances = instances;
    this.#votes = votes;
    this.#scheduler = scheduler;
    this.#settings = settings;
    this.#quorum = quorumOf(instances.length);
    this.#clustered = clustered;
  }

  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], options?: RunOptions): Observable<R> {
    const vote = this.#votes.get(script.sha1);
    return new Observable<R>((subscriber) => {
      if (vote === undefined) {
        subscriber.error(new StoreError('other', `${script.name} cannot run on a Redlock client: it supports lock$, withLock$, withLock and acquire`, false));
        return;
      }
      const scheduler = this.#scheduler;
      const startedAt = scheduler.now();
      const raw = rawForm(script);
      const ballots: Ballot<Reply>[] = this.#instances.map(() => ({ state: 'pending' }));
      const timers: Subscription[] = [];
      let decided = false;
      const decide = (): void => {
        if (decided) return;
        let verdict: Verdict | undefined;
        try {
          verdict = vote.decide(ballots, this.#context(keys, args, startedAt, ballots));
        } catch (error) {
          // An instance answered in a form the vote cannot read (another version's script, say). Some may have
          // granted or changed something: the outcome is unknown, so the engine compensates on every instance.
          verdict = { error: new StoreError('other', `unexpected reply from ${script.name}: ${String(error)}`, true, { cause: error }) };
        }
        if (verdict === undefined) return;
        decided = true;
        for (const timer of timers) timer.unsubscribe();
        if ('error' in verdict) {
          subscriber.error(verdict.error);
          return;
        }
        if (verdict.rollback !== undefined) this.#rollBack(verdict.rollback, ballots);
        let parsed: R;
        try {
          parsed = script.parse(verdict.reply);
        } catch (error) {
          subscriber.error(new StoreError('other', `unexpected reply from ${script.name}: ${String(error)}`, false, { cause: error }));
          return;
        }
        subscriber.next(parsed);
        subscriber.complete();
      };
      this.#instances.forEach((instance, index) => {
        const cast = (ballot: Ballot<Reply>): void => {
          if (ballots[index]?.state !== 'pending') return;
          ballots[index] = ballot;
          decide();
        };
        // A command that was sent runs; its late reply must still be counted, so nothing here is unsubscribed.
        instance.run(raw, keys, args, options).subscribe({
          next: (reply) => cast({ state: 'replied', reply }),
          error: (error: unknown) => cast({ state: 'failed', error }),
        });
        timers.push(
          scheduler.schedule(() => cast({ state: 'failed', error: new StoreError('timeout', 'no reply in time', true) }), this.#settings.instanceTimeoutMs),
        );
      });
      // Whoever stopped listening (the engine's command timeout) compensates by itself.
      return () => {
        for (const timer of timers) timer.unsubscribe();
      };
    });
  }

  /**
   * Runs a verdict's rollback on every instance but those that replied with a refusal (an array): where the
   * command failed or has not answered yet it may still run (it waits in the socket of a paused server, or in
   * ioredis' queue), and this one follows it on the same connection; where it replied with a grant (an
   * integer), the verdict did not keep it. Its failures are dropped: the TTL is the safety net.
   */
  #rollBack(rollback: ScriptCall<unknown>, ballots: readonly Ballot<Reply>[]): void {
    this.#instances.forEach((instance, index) => {
      const ballot = ballots[index];
      if (ballot?.state === 'replied' && typeof ballot.reply !== 'number') return;
      instance.run(rawForm(rollback.script), rollback.keys, rollback.args).subscribe({ error: () => undefined });
    });
  }

  #context(keys: readonly string[], args: readonly (string | number)[], startedAt: number, ballots: readonly Ballot<unknown>[]): VoteContext {
    const { driftFactor, driftMs } = this.#settings;
    return {
      instances: this.#instances.length,
      quorum: this.#quorum,
      keys,
      args,
      elapsedMs: this.#scheduler.now() - startedAt,
      settled: ballots.every((ballot) => ballot.state !== 'pending'),
      driftFor: (ttlMs) => Math.ceil(ttlMs * driftFactor) + driftMs,
    };
  }

  listen(channel: string): Observable<ChannelEvent> {
    // A release announces itself on every instance it ran on; any of them may wake the waiters.
    return merge(...this.#instances.map((instance) => instance.listen(channel)));
  }

  epoch(): number {
    return this.#instances.reduce((sum, instance) => sum + instance.epoch(), 0);
  }

  slotOf(key: string): number {
    return this.#clustered ? calculateSlot(key) : 0;
  }

  async evictionPolicy(): Promise<string | undefined> {
    const policies = await Promise.all(this.#instances.map((instance) => instance.evictionPolicy().catch(() => undefined)));
    return policies.find((policy) => policy !== undefined && policy !== 'noeviction') ?? policies.find((policy) => policy !== undefined);
  }

  async close(): Promise<void> {
    await Promise.all(this.#instances.map((instance) => instance.close()));
  }
}

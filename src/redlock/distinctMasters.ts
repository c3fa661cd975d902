import type { SchedulerLike, Subscription } from 'rxjs';
import type { RedisDriver } from '../store/redis/driver/RedisDriver.js';
import { callSite } from '../util/describeValue.js';
import { quorumOf } from './quorum.js';

/** What is known of one instance's server: its `run_id`, or that it cannot be known. */
type Identity = { readonly state: 'unknown' } | { readonly state: 'known'; readonly runId: string } | { readonly state: 'unidentifiable' };

const UNKNOWN: Identity = { state: 'unknown' };
const UNIDENTIFIABLE: Identity = { state: 'unidentifiable' };

/** How long the first use waits for the servers' run_ids. */
export interface IdentifyTimeouts {
  /** The longest wait for all of them. */
  readonly totalMs: number;
  /** Once a majority answered, how much longer the others are waited for. */
  readonly straggleMs: number;
}

/**
 * Refuses two instances that are clients of one server (a host listed twice, under two names): that server
 * would count twice, so losing it alone would lose a majority. The servers' `run_id`s (`INFO server`) are read
 * at first use, which waits for them as a vote does (a slow start delays every instance alike; one that lags
 * the majority by `straggleMs` is not waited for). An instance that did not answer is asked again at later
 * uses, without waiting, until every instance is identified; from then on no call sends anything more.
 */
export class DistinctMasters {
  readonly #instances: readonly RedisDriver[];
  readonly #timeouts: IdentifyTimeouts;
  readonly #identities: Identity[];
  readonly #asking = new Set<number>();
  #settled = false;
  #first: Promise<void> | undefined;
  /** Ends the first use's wait (all answered, timed out, or closed). */
  #stopWaiting: (() => void) | undefined;
  #duplicate: { readonly first: number; readonly second: number; readonly runId: string } | undefined;

  readonly #scheduler: SchedulerLike;

  constructor(instances: readonly RedisDriver[], timeouts: IdentifyTimeouts, scheduler: SchedulerLike) {
    this.#instances = instances;
    this.#timeouts = timeouts;
    this.#scheduler = scheduler;
    // A Cluster's INFO goes to any of its nodes, so its run_id says nothing about the cluster as a whole.
    this.#identities = instances.map((instance) => (instance.isCluster ? UNIDENTIFIABLE : UNKNOWN));
    this.#settle();
  }

  /** Resolves once the call may go on; rejects with a TypeError naming the call when two instances are one server. */
  check(method: string, name: unknown): Promise<void> | undefined {
    if (this.#duplicate !== undefined) return Promise.reject(this.#error(method, name));
    if (this.#settled) return undefined;
    if (this.#first === undefined) {
      this.#first = this.#identify();
    } else {
      for (let index = 0; index < this.#instances.length; index++) void this.#ask(index);
    }
    return this.#first.then(() => {
      if (this.#duplicate !== undefined) throw this.#error(method, name);
    });
  }

  /** The client closed: calls waiting for the first use's answers go on at once (to the closed client's error). */
  close(): void {
    this.#stopWaiting?.();
  }

  #identify(): Promise<void> {
    const total = this.#instances.length;
    return new Promise<void>((resolve) => {
      const timers: Subscription[] = [];
      const done = (): void => {
        for (const timer of timers) timer.unsubscribe();
        this.#stopWaiting = undefined;
        resolve();
      };
      this.#stopWaiting = done;
      timers.push(this.#scheduler.schedule(done, this.#timeouts.totalMs));
      let answered = this.#identities.filter((identity) => identity.state !== 'unknown').length;
      let straggling = false;
      const counted = (): void => {
        if (this.#duplicate !== undefined || answered === total) done();
        else if (answered >= quorumOf(total) && !straggling) {
          straggling = true;
          timers.push(this.#scheduler.schedule(done, this.#timeouts.straggleMs));
        }
      };
      counted();
      for (let index = 0; index < total; index++) {
        if (this.#identities[index]?.state !== 'unknown') continue;
        void this.#ask(index).then(() => {
          answered++;
          counted();
        });
      }
    });
  }

  /** Asks one unidentified instance for its run_id, unless a question is pending; settles with its answer or failure. */
  #ask(index: number): Promise<void> {
    const instance = this.#instances[index];
    if (instance === undefined || this.#identities[index]?.state !== 'unknown' || this.#asking.has(index)) return Promise.resolve();
    this.#asking.add(index);
    return instance.info('server').then(
      (info) => {
        this.#asking.delete(index);
        const runId = /^run_id:(\w+)/m.exec(info)?.[1];
        this.#learn(index, runId === undefined ? UNIDENTIFIABLE : { state: 'known', runId });
      },
      (error: unknown) => {
        this.#asking.delete(index);
        // An error reply (INFO denied by an ACL, a proxy without it) will not change; a lost connection may.
        if (instance.isReplyError(error)) this.#learn(index, UNIDENTIFIABLE);
      },
    );
  }

  #learn(index: number, identity: Identity): void {
    this.#identities[index] = identity;
    if (identity.state === 'known' && this.#duplicate === undefined) {
      const other = this.#identities.findIndex((known, at) => at !== index && known.state === 'known' && known.runId === identity.runId);
      if (other !== -1) this.#duplicate = { first: Math.min(other, index), second: Math.max(other, index), runId: identity.runId };
    }
    this.#settle();
  }

  #settle(): void {
    this.#settled = this.#identities.every((identity) => identity.state !== 'unknown');
  }

  #error(method: string, name: unknown): TypeError {
    const { first, second, runId } = this.#duplicate ?? { first: -1, second: -1, runId: '' };
    return new TypeError(
      `rxlock: ${callSite(method, name)}: instances[${String(first)}] and instances[${String(second)}] of createRedlockClient are clients of the same Redis server ` +
        `(run_id ${runId}); each master must count once, or losing that one server would lose a majority`,
    );
  }
}

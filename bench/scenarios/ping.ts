import { latencyHistogram, recordMs, type Histogram } from '../histogram.js';
import type { BenchServer } from '../server.js';
import { sleep } from '../sleep.js';

/** Where the PING round trips of a run are recorded. */
export interface PingHistograms {
  /** PINGs sent back to back: the round trip the switch-gap target is stated in. */
  readonly backToBack: Histogram;
  /**
   * PINGs each sent after a 1 ms pause, when Redis and the client have gone idle, as a release sent at the
   * end of a hold is: the round trip then includes waking both up. Context for the switch gap, not a target.
   */
  readonly afterPause: Histogram;
  /**
   * After the same pause, an `EVALSHA` of a script that does nothing but publish, until its message reaches
   * a subscriber on another connection: the least any hand-off over pub/sub takes. Context, not a target.
   */
  readonly publishAfterPause: Histogram;
  /**
   * Each of those 1 ms pauses as timed: how late a timer fires while the process is idle. On a VM whose
   * vCPU is now and then descheduled it shows stalls no library causes, which every wait in a chain of
   * hand-offs adds up. Context for the wait tails, not a target.
   */
  readonly idleTimer: Histogram;
}

/** A fresh set of PING histograms for one run or probe. */
export function pingHistograms(): PingHistograms {
  return { backToBack: latencyHistogram(), afterPause: latencyHistogram(), publishAfterPause: latencyHistogram(), idleTimer: latencyHistogram() };
}

/** One pause-first PING (and publish) for every this many back-to-back PINGs (each pause costs at least 1 ms). */
const BACK_TO_BACK_PER_PAUSED = 10;

/** A script that does nothing but publish on `KEYS[1]`: the least a hand-off over pub/sub can send. */
export const PUBLISH_ONLY_LUA = "redis.call('publish', KEYS[1], 'granted') return 1";

/** A subscriber on a channel of its own, to time messages to. */
export interface PublishListener {
  readonly channel: string;
  /** Calls `send` and resolves once a message reached the subscriber; rejects if `send` fails. */
  delivered(send: () => Promise<unknown>): Promise<void>;
  close(): void;
}

export async function publishListener(server: BenchServer): Promise<PublishListener> {
  const listener = await server.listener();
  const channel = `rxbench-publish-floor-${String(process.pid)}-${String(Date.now())}`;
  let heard = (): void => undefined;
  listener.on('message', () => heard());
  try {
    await listener.subscribe(channel);
  } catch (error) {
    listener.disconnect();
    throw error;
  }
  return {
    channel,
    delivered: (send) =>
      new Promise<void>((resolve, reject) => {
        heard = resolve;
        send().catch(reject);
      }),
    close: () => listener.disconnect(),
  };
}

/** Sequential PINGs on a fresh connection (after a short warm-up), then fewer, each after a pause, each followed by a paused publish. */
export async function measurePing(server: BenchServer, pings: PingHistograms, count: number): Promise<void> {
  const redis = server.connect();
  const timed = async (histogram: Histogram): Promise<void> => {
    const sentAt = performance.now();
    await redis.ping();
    recordMs(histogram, performance.now() - sentAt);
  };
  let listener: PublishListener | undefined;
  try {
    const published = (listener = await publishListener(server));
    const publishOnly = (await redis.script('LOAD', PUBLISH_ONLY_LUA)) as string;
    for (let i = 0; i < 50; i++) await redis.ping();
    for (let i = 0; i < count; i++) await timed(pings.backToBack);
    for (let i = 0; i < Math.ceil(count / BACK_TO_BACK_PER_PAUSED); i++) {
      await timedPause(pings.idleTimer);
      await timed(pings.afterPause);
      await timedPause(pings.idleTimer);
      const sentAt = performance.now();
      await published.delivered(() => redis.evalsha(publishOnly, 1, published.channel));
      recordMs(pings.publishAfterPause, performance.now() - sentAt);
    }
  } finally {
    redis.disconnect();
    listener?.close();
  }
}

async function timedPause(histogram: Histogram): Promise<void> {
  const startedAt = performance.now();
  await sleep(1);
  recordMs(histogram, performance.now() - startedAt);
}

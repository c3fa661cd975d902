import { recordMs, type Histogram } from '../histogram.js';
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
}

/** One pause-first PING for every this many back-to-back ones (each pause costs at least 1 ms). */
const BACK_TO_BACK_PER_PAUSED = 10;

/** Sequential PINGs on a fresh connection (after a short warm-up), then fewer, each after a pause. */
export async function measurePing(server: BenchServer, pings: PingHistograms, count: number): Promise<void> {
  const redis = server.connect();
  const timed = async (histogram: Histogram): Promise<void> => {
    const sentAt = performance.now();
    await redis.ping();
    recordMs(histogram, performance.now() - sentAt);
  };
  try {
    for (let i = 0; i < 50; i++) await redis.ping();
    for (let i = 0; i < count; i++) await timed(pings.backToBack);
    for (let i = 0; i < Math.ceil(count / BACK_TO_BACK_PER_PAUSED); i++) {
      await sleep(1);
      await timed(pings.afterPause);
    }
  } finally {
    redis.disconnect();
  }
}

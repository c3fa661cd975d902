import type { BenchServer } from '../server.js';
import { recordMs, type Histogram } from '../histogram.js';

/** Sequential PINGs on a fresh connection, recorded into `histogram` (after a short warm-up). */
export async function measurePing(server: BenchServer, histogram: Histogram, count: number): Promise<void> {
  const redis = server.connect();
  try {
    for (let i = 0; i < 50; i++) await redis.ping();
    for (let i = 0; i < count; i++) {
      const sentAt = performance.now();
      await redis.ping();
      recordMs(histogram, performance.now() - sentAt);
    }
  } finally {
    redis.disconnect();
  }
}

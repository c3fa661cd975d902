import { Redlock, type Lock } from '@sesamecare-oss/redlock';
import type { Contender } from './Contender.js';

const DURATION_MS = 10_000;

/** @sesamecare-oss/redlock on one instance, default retry delay and jitter, retrying until acquired. */
export const redlock: Contender = {
  id: 'redlock',
  label: 'redlock',
  settings: `@sesamecare-oss/redlock 1.4.0, one Redlock per worker on its own connection, \`{ retryCount: -1 }\` (retry until acquired), defaults otherwise: retryDelay 200 ms, retryJitter 100 ms, driftFactor 0.01. \`await redlock.acquire([key], ${DURATION_MS})\`, \`await lock.release()\`. No extension (holds are short).`,
  excludes: true,
  unavailable: () => Promise.resolve(undefined),
  open({ key, connect }) {
    const client = new Redlock([connect()], { retryCount: -1 });
    let lock: Lock | undefined;
    return Promise.resolve({
      acquire: async () => {
        lock = await client.acquire([key], DURATION_MS);
        return true;
      },
      release: async () => {
        const held = lock;
        lock = undefined;
        await held?.release();
      },
      close: () => Promise.resolve(),
    });
  },
};

import { randomUUID } from 'node:crypto';
import { sleep } from '../sleep.js';
import type { Contender } from './Contender.js';

const LEASE_MS = 10_000;
const POLL_MS = 10;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** What many teams write by hand: SET NX PX, poll every 10 ms, compare-and-delete to release. */
export const naiveSetNx: Contender = {
  id: 'naive',
  label: 'SET NX + 10 ms poll',
  settings: `\`SET key <uuid> NX PX ${LEASE_MS}\`; when refused, sleep ${POLL_MS} ms (setTimeout) and try again; release with a compare-and-delete script (ioredis defineCommand: EVALSHA, EVAL on NOSCRIPT). No renewal.`,
  excludes: true,
  unavailable: () => Promise.resolve(undefined),
  open({ key, connect }) {
    const redis = connect();
    redis.defineCommand('naiveRelease', { numberOfKeys: 1, lua: RELEASE });
    const release = (redis as unknown as { naiveRelease(key: string, token: string): Promise<number> }).naiveRelease.bind(redis);
    let token = '';
    return Promise.resolve({
      acquire: async () => {
        token = randomUUID();
        while ((await redis.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') await sleep(POLL_MS);
        return true;
      },
      release: async () => {
        await release(key, token);
      },
      close: () => Promise.resolve(),
    });
  },
};

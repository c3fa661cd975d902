import { Mutex } from 'redis-semaphore';
import type { Contender } from './Contender.js';

/** redis-semaphore's Mutex with its defaults; one instance per critical section, as its README asks. */
export const redisSemaphore: Contender = {
  id: 'redis-semaphore',
  label: 'redis-semaphore',
  settings:
    'redis-semaphore 5.8.0 `new Mutex(redis, key)` per acquisition, defaults: lockTimeout 10000, acquireTimeout 10000, retryInterval 10 ms (SET NX PX polling), refreshInterval 8000. `await mutex.acquire()`, `await mutex.release()`. A TimeoutError (10 s) is counted and the worker asks again, its wait clock still running.',
  excludes: true,
  unavailable: () => Promise.resolve(undefined),
  open({ key, connect }) {
    const redis = connect();
    let mutex: Mutex | undefined;
    return Promise.resolve({
      acquire: async () => {
        mutex ??= new Mutex(redis, key);
        try {
          await mutex.acquire();
          return true;
        } catch (error) {
          if (error instanceof Error && error.name === 'TimeoutError') return false;
          throw error;
        }
      },
      release: async () => {
        const held = mutex;
        mutex = undefined;
        await held?.release();
      },
      close: () => Promise.resolve(),
    });
  },
};

import type { Contender } from './Contender.js';

const TRIVIAL = 'return 1';

/** Not a lock: one EVALSHA of a script that returns 1 to "acquire", one to "release". The round-trip cost any lock pays at least. */
export const floor: Contender = {
  id: 'floor',
  label: 'floor',
  settings: 'EVALSHA of `return 1` (1 key) to acquire and again to release; the script is loaded before the window. Not a lock.',
  excludes: false,
  unavailable: () => Promise.resolve(undefined),
  async open({ key, connect }) {
    const redis = connect();
    const sha = (await redis.script('LOAD', TRIVIAL)) as string;
    return {
      acquire: async () => {
        await redis.evalsha(sha, 1, key);
        return true;
      },
      release: async () => {
        await redis.evalsha(sha, 1, key);
      },
      close: () => Promise.resolve(),
    };
  },
};

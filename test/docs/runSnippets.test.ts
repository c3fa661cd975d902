import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCodeBlocks, claimedOutput, matchesClaim } from '../support/markdownBlocks.js';
import { startRedis, type RedisServer } from '../support/redisServer.js';

// Every ```ts run block of the README and docs/ runs as a user would run it: a file inside this package, so that
// `import … from 'rxlock'` resolves to the built package (dist/) through its own exports map, with `node --import
// tsx`, REDIS_URL pointing at a redis-server of this test's own. What it prints must be what its `// prints: …`
// comments say, and the process must exit by itself: a lock client left open would keep it alive.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const workDir = join(root, '.tmp', 'docs-run');
const run = promisify(execFile);
const blocks = allCodeBlocks(root).filter((block) => block.mode === 'run');

let redis: RedisServer;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  redis = await startRedis();
  mkdirSync(workDir, { recursive: true });
});

afterAll(async () => {
  await redis.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('`ts run` blocks of the docs', () => {
  it('matches printed lines to claims, with … for any text', () => {
    expect(matchesClaim('release: LockLostError: rxlock: lost "x"', 'release: LockLostError: …')).toBe(true);
    expect(matchesClaim('holds: 2', 'holds: 1')).toBe(false);
    expect(matchesClaim('holds: 2 (of 3)', 'holds: 2')).toBe(false);
  });

  it('has blocks to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(13);
  });

  for (const block of blocks) {
    it(`${block.page}:${block.firstLine} prints what it says`, async () => {
      const file = join(workDir, `${block.page.replaceAll(/[/.]/g, '_')}_${block.firstLine}.ts`);
      writeFileSync(file, block.code);
      const admin = redis.client();
      await admin.flushall();
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
        cwd: root,
        env: { ...process.env, REDIS_URL: redis.url },
        timeout: 30_000,
      });
      const lines = stdout.split('\n').filter((line) => line !== '');
      const claims = claimedOutput(block.code);
      expect(claims.length).toBeGreaterThan(0);
      // A printed line that matches its claim is shown as the claim, so that the diff shows only what differs.
      const shown = lines.map((line, index) => (index < claims.length && matchesClaim(line, claims[index]!) ? claims[index] : line));
      expect(shown).toEqual(claims);
    });
  }
});

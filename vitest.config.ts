import { defineConfig } from 'vitest/config';

const common = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      // npm test: virtual-time marble tests and real-Redis tests that run in a few minutes.
      {
        test: {
          ...common,
          name: 'unit',
          include: ['marbles/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/faults/**', 'test/topologies/**', 'test/examples/**'],
        },
      },
      // npm run test:faults: fault injection and soak against real redis-server processes.
      { test: { ...common, name: 'faults', include: ['test/faults/**/*.test.ts'], testTimeout: 600_000, fileParallelism: false } },
      // npm run test:topologies: Redis Cluster, Sentinel and Redlock over several masters.
      { test: { ...common, name: 'topologies', include: ['test/topologies/**/*.test.ts'], testTimeout: 600_000, fileParallelism: false } },
      // npm run test:examples: every program of examples/ against a fresh redis-server, and the examples' own tests.
      { test: { ...common, name: 'examples', include: ['test/examples/**/*.test.ts', 'examples/**/*.test.ts'], testTimeout: 120_000, fileParallelism: false } },
    ],
  },
});

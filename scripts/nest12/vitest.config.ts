import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

const root = resolve(import.meta.dirname, '../..');
const nest12 = resolve(root, '.tmp/nest12/node_modules/@nestjs');

// The NestJS tests again, with every @nestjs/* import taken from the NestJS 12 install (scripts/nest12/run.sh).
export default defineConfig({
  root,
  resolve: { alias: [{ find: /^@nestjs\/([a-z-]+)$/, replacement: `${nest12}/$1` }] },
  test: {
    name: 'nest12',
    include: ['test/nestjs/**/*.test.ts', 'marbles/nestjs/**/*.test.ts'],
    // NestJS 12 is ESM in many small files: loading it through the resolve hook is slow in child processes.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

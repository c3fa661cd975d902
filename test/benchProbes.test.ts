import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchScript } from './support/benchProcess.js';

/** Each probe of `bench/probes/` and a line of its results, with any extra settings it is run with. */
const PROBES: readonly { file: string; results: RegExp; env?: Record<string, string> }[] = [
  { file: 'coldHandOff.ts', results: /^this build +server +[\d.]+ µs +reply [\d.]+ ms +hand-off message [\d.]+ ms$/m },
  { file: 'commandCost.ts', results: /^10 arguments \(lock acquire\), rxlock preparedEvalsha +[\d.]+ µs$/m },
  {
    file: 'contendedCost.ts',
    results:
      /^heavy redis-semaphore +client user µs \d+, client system µs \d+, Redis user µs \d+, Redis system µs \d+, EVALSHA µs \d+, Redis reads [\d.]+, Redis writes [\d.]+, client wake-ups [\d.]+, Redis wake-ups [\d.]+$/m,
  },
  { file: 'cycleCost.ts', results: /^medians: floor [\d.]+ µs, rxlock lock [\d.]+ µs per cycle/m },
  { file: 'engineCost.ts', results: /^engine \+ memory store, CPU per acquire\/release cycle: median [\d.]+ µs/m },
  { file: 'fairTail.ts', results: /^ {2}fairLock\.release +\d+ calls: p10 \d+ µs, p50 \d+ µs, p90 \d+ µs$/m },
  {
    file: 'fairTail.ts',
    results:
      /^holds and switches of 5 ms or more: \d+; what held them up: (none|(host took a vCPU|probe waited for a vCPU|probe's other threads ran|probe ran|Redis ran or waited|nothing ran) \d+)/m,
    env: { PROBE_STALLS: '1' },
  },
  { file: 'fairTail.ts', results: /^ {2}lock\.release +\d+ calls: p10 \d+ µs, p50 \d+ µs, p90 \d+ µs$/m, env: { PROBE_LOCK: 'lock' } },
  {
    file: 'holdTimer.ts',
    results:
      /^ {2}another PING answered during it +p10 [\d.]+ ms[\s\S]*^ {2}redis-semaphore +p10 [\d.]+ ms, p50 [\d.]+ ms, p90 [\d.]+ ms, mean [\d.]+ ms, under 1 ms [\d.]+ %$/m,
  },
  {
    file: 'nodeRedisCycle.ts',
    results: /^ {2}scripts\+engine +\d+ cycles\/s, [\d.]+ × the floor of its round; CPU per cycle: this process [\d.]+ µs, Redis [\d.]+ µs$/m,
  },
  {
    file: 'nodeRedisCycle.ts',
    results:
      /^medians:\n {2}floor +\d+ cycles\/s, 1\.00 × the floor of its round; .*\n {2}bare +\d+ cycles\/s, [\d.]+ × the floor of its round; .*$(?!\n {2})/m,
    env: { PROBE_CONTENDERS: 'floor,bare' },
  },
  { file: 'gcPromotion.ts', results: /^rxlock-fair +\d+ acquisitions: promoted \d+ B\/acquisition/m },
  { file: 'publishFloor.ts', results: /^publish-only script, to the message +[\d.]+ ms$/m },
  { file: 'scriptCost.ts', results: /^rxlock's lock scripts, held keys: refused acquire \(queued\) [\d.]+ µs, release handing to the waiter [\d.]+ µs$/m },
  { file: 'switchPath.ts', results: /^waiter's lease +p50 [\d.]+ ms/m },
  {
    file: 'switchPath.ts',
    results:
      /^read first: the reply in \d+ hand-offs, the message in \d+$[\s\S]*^per hand-off, medians: written → reply read \d+ µs, .* at the connection → lease \d+ µs$/m,
    env: { PROBE_LOCK: 'lock' },
  },
];

// The probes are run by hand and documented in bench/README.md; one that stopped working would go unnoticed
// until someone needed it. This runs each at a tiny size and checks that it ends well and prints its results,
// never what they are.
describe('the bench probes still run', () => {
  it.each(PROBES.map((probe) => ({ ...probe, name: `${probe.file}${probe.env === undefined ? '' : ` ${JSON.stringify(probe.env)}`}` })))(
    '$name',
    { timeout: 90_000 },
    async ({ file, results, env }) => {
      const { code, output } = await runBenchScript(join('bench', 'probes', file), [], { ...env, PROBE_SMOKE: '1' });
      expect(code, output).toBe(0);
      expect(output).toContain('PROBE_SMOKE=1: a smoke run');
      expect(output).toMatch(results);
    },
  );
});

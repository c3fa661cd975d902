import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { BenchResults } from '../bench/results.js';
import { runBenchScript } from './support/benchProcess.js';

const dir = mkdtempSync(join(tmpdir(), 'rxlock-bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('runs every scenario of the bench end to end, and no lock ever had two holders', { timeout: 240_000 }, async () => {
  const jsonFile = join(dir, 'smoke.json');
  // `npm run bench`'s entry point in smoke mode: a few seconds, every scenario and contender.
  const { code, output } = await runBenchScript('bench/main.ts', ['--smoke', '--json', jsonFile]);
  expect(code, output).toBe(0);
  const results = JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchResults;

  expect(results.lockScenarios.map((result) => result.scenario.id)).toEqual(['uncontended', 'contended', 'heavy']);
  for (const { scenario, figures } of results.lockScenarios) {
    const ran = figures.filter((f) => f.unavailable === undefined);
    expect(ran.map((f) => f.id)).toContain('rxlock');
    for (const f of ran) {
      expect({ scenario: scenario.id, contender: f.id, ran: f.acquisitions > 0, overlaps: f.overlaps }).toEqual({
        scenario: scenario.id,
        contender: f.id,
        ran: true,
        overlaps: 0,
      });
    }
  }
  const uncontended = results.lockScenarios[0]!.figures.map((f) => f.id);
  expect(uncontended).toEqual(expect.arrayContaining(['floor', 'redisson-scripts', 'rxlock-scripts', 'rxlock', 'redis-semaphore', 'redlock', 'naive']));

  const heldLock = results.manyHeld.find((h) => h.id === 'rxlock');
  expect(heldLock?.held).toBe(heldLock?.locks);
  expect(heldLock?.ticks).toBeGreaterThan(0);

  const endurance = results.endurance.filter((run) => run.unavailable === undefined);
  expect(endurance.map((run) => run.id)).toContain('rxlock');
  for (const run of endurance) expect({ id: run.id, cycles: run.cycles, overlaps: run.overlaps }).toEqual({ id: run.id, cycles: 1_500, overlaps: 0 });

  expect(results.targets.length).toBeGreaterThan(0);
  expect(results.ping?.count).toBeGreaterThan(0);
  expect(results.pingAfterPause?.count).toBeGreaterThan(0);
  expect(results.publishAfterPause?.count).toBeGreaterThan(0);
  expect(results.idleTimer?.count).toBeGreaterThan(0);
  // The 1 ms pauses and the contended scenario's 1 ms holds were timed, not left empty or zero (no speed is asserted).
  expect(results.idleTimer?.p50Ms).toBeGreaterThan(0);
  const contended = results.lockScenarios.find((result) => result.scenario.id === 'contended')!;
  const rxlockHold = contended.figures.find((f) => f.id === 'rxlock')?.hold;
  expect(rxlockHold?.count).toBeGreaterThan(0);
  expect(rxlockHold?.p50Ms).toBeGreaterThan(0);
  expect(rxlockHold?.meanMs).toBeGreaterThan(0);
  expect(rxlockHold?.shortShare).toBeGreaterThanOrEqual(0);
  expect(rxlockHold?.shortShare).toBeLessThanOrEqual(1);
  expect(results.lockScenarios.find((result) => result.scenario.id === 'heavy')!.figures.every((f) => f.hold === undefined)).toBe(true);
});

/**
 * `PROBE_SMOKE=1` runs a probe at a size that only shows it still runs end to end (the test suite's
 * `test/benchProbes.test.ts`); its figures then mean nothing, and it says so first.
 */
export const SMOKE = process.env['PROBE_SMOKE'] === '1';

if (SMOKE) console.log('PROBE_SMOKE=1: a smoke run, which only shows that this probe still runs; its figures mean nothing');

/** A probe's count or duration: `full` normally, `smoke` under `PROBE_SMOKE=1`. */
export function probeSize(full: number, smoke: number): number {
  return SMOKE ? smoke : full;
}

import { describe, expect, it } from 'vitest';
import { accountSpan, SAMPLE_FIELDS } from '../bench/probes/stalls.js';

/** Samples every `stepMs` from 0: each row gives what grew during the step before it (ms of run and wait, steal ticks). */
function samples(
  stepMs: number,
  steps: { probeRan?: number; probeWaited?: number; redis?: number; others?: number; steal?: number; gapMs?: number }[],
): Float64Array {
  const out = new Float64Array((steps.length + 1) * SAMPLE_FIELDS);
  let at = 0;
  const totals = [0, 0, 0, 0, 0, 0];
  steps.forEach((step, index) => {
    at += step.gapMs ?? stepMs;
    totals[0]! += (step.probeRan ?? 0) * 1e6;
    totals[1]! += (step.probeWaited ?? 0) * 1e6;
    totals[2]! += (step.redis ?? 0) * 1e6;
    totals[4]! += step.steal ?? 0;
    totals[5]! += (step.others ?? 0) * 1e6;
    out.set([at, ...totals], (index + 1) * SAMPLE_FIELDS);
  });
  return out;
}

describe("the bench's stall accounting (bench/probes/stalls.ts)", () => {
  it('blames the host when the sampler itself stopped and nothing in the VM ran', () => {
    const account = accountSpan(samples(1, [{}, { gapMs: 10, probeRan: 0.5 }, {}]), 1, 10);
    expect(account).toMatchObject({ cause: 'host took a vCPU', samplerPauseMs: 10, probeRan: 0.5 });
  });

  it('blames the host on steal ticks while the sampler kept running', () => {
    const quiet = Array.from({ length: 10 }, () => ({}));
    const account = accountSpan(samples(1, [...quiet.slice(0, 5), { steal: 1 }, ...quiet.slice(5)]), 0, 10);
    expect(account).toMatchObject({ cause: 'host took a vCPU', stealTicks: 1 });
  });

  it("names the probe's wait for a vCPU, and its other threads when they ran more", () => {
    const waited = Array.from({ length: 8 }, () => ({ probeWaited: 0.8 }));
    expect(accountSpan(samples(1, waited), 0, 8).cause).toBe('probe waited for a vCPU');
    const crowded = Array.from({ length: 8 }, () => ({ probeWaited: 0.8, others: 1.6 }));
    expect(accountSpan(samples(1, crowded), 0, 8)).toMatchObject({ cause: "probe's other threads ran", othersRan: 12.8 });
  });

  it('says nothing ran when nobody accounts for a third of the span (a late wake-up)', () => {
    const idle = Array.from({ length: 9 }, () => ({ probeRan: 0.1, redis: 0.1 }));
    expect(accountSpan(samples(1, idle), 0, 9).cause).toBe('nothing ran');
  });

  it('refuses to account without samples', () => {
    expect(() => accountSpan(new Float64Array(0), 0, 5)).toThrow(RangeError);
  });
});

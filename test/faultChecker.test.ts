import { describe, expect, it } from 'vitest';
import { checkHistory, CLOCK_OFFSET, openAt, shared, type SectionRecord } from './support/checker.js';

/** A released section of lock `l` recorded by a process whose clock reads `clockOffset` ms ahead of the shared one. */
function section(holder: string, token: number, start: number, end: number, clockOffset: number): SectionRecord {
  return { lock: 'l', holder, owner: holder, token, start, end, observedEnd: end, outcome: 'released', clockOffset };
}

// Each process's now() is anchored on two clock reads at its start; a pause between them (or a step of the wall
// clock) leaves processes disagreeing by milliseconds for their whole life.
describe('the fault checker compares processes on the clock they share (test/support/checker.ts)', () => {
  it('finds no overlap where two processes only disagree about the time', () => {
    // w2's clock is 4 ms behind: read as they are, its section (108–120) starts before w1's (100–110) ends.
    const report = checkHistory([section('w1/c0', 1, 100, 110, 0), section('w2/c0', 2, 108, 120, -4)], []);
    expect(report.overlaps).toEqual([]);
    expect(report.tokenRegressions).toBe(0);
  });

  it('still finds an overlap on the shared clock, and tokens out of the order holders entered', () => {
    // On the shared clock w2 entered at 108, while w1 held until 110; its older token is a regression.
    const first = section('w1/c0', 2, 100, 110, 0);
    const second = section('w2/c0', 1, 104, 120, -4);
    const report = checkHistory([first, second], []);
    expect(report.overlaps).toEqual([{ lock: 'l', first, second, ms: 2 }]);
    expect(report.tokenRegressions).toBe(1);
  });

  it('finds the sections open at a moment of this process, whichever process recorded them', () => {
    const at = 105 + CLOCK_OFFSET;
    const open = openAt([section('w1/c0', 1, 100, 110, 0), section('w2/c0', 2, 90, 104, -4), section('w3/c0', 3, 98, 99, 0)], at);
    expect(open.map((record) => record.holder)).toEqual(['w1/c0', 'w2/c0']);
    expect(shared(at)).toBe(105);
  });
});

import { describe, expect, it } from 'vitest';
import { percent } from '../bench/report/format.js';

describe("the bench's percentages", () => {
  it('print a change that rounds to zero as 0.0 %, whatever its sign', () => {
    expect(percent(-0.0004)).toBe('0.0 %');
    expect(percent(0.0004)).toBe('0.0 %');
  });

  it('keep the sign of a change that does not round to zero', () => {
    expect(percent(-0.0093)).toBe('-0.9 %');
    expect(percent(0.0123)).toBe('1.2 %');
  });

  it('print a missing figure as an en dash', () => {
    expect(percent(undefined)).toBe('–');
  });
});

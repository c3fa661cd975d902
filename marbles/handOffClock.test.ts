import { describe, expect, it } from 'vitest';
import { HandOffClock } from '../src/engine/handOff/HandOffClock.js';

// Server times in µs; local times in ms.
describe('HandOffClock: when a waiter may take a grant from a hand-off message', () => {
  it('times the lease from the queued attempt’s send time plus the server time since, less the drift', () => {
    const clock = new HandOffClock();
    clock.sending(1_000);
    clock.queued(5_000_000);
    clock.handed(7, 5_200_000);
    expect(clock.takeGrant(1_500, 0.01)).toEqual({ token: 7, sentAt: 1_000 + 200 * 0.99 });
    // Taken once.
    expect(clock.takeGrant(1_500, 0.01)).toBeUndefined();
  });

  it('never dates the lease after the present', () => {
    const clock = new HandOffClock();
    clock.queued(5_000_000, 1_000);
    clock.handed(-1, 9_000_000);
    expect(clock.takeGrant(1_100, 0)?.sentAt).toBe(1_100);
  });

  it('ignores a hand-off older than the latest attempt that found the waiter queued (that grant was lost since)', () => {
    const clock = new HandOffClock();
    clock.queued(5_000_000, 1_000);
    clock.queued(6_000_000, 2_000);
    clock.handed(3, 5_500_000);
    expect(clock.takeGrant(2_500, 0)).toBeUndefined();
  });

  it('takes nothing before an attempt found the waiter queued', () => {
    const clock = new HandOffClock();
    clock.handed(3, 5_500_000);
    expect(clock.takeGrant(2_500, 0)).toBeUndefined();
  });

  it('after a compensation, takes no hand-off until an attempt finds the waiter queued again, and then only later ones', () => {
    const clock = new HandOffClock();
    clock.queued(5_000_000, 1_000);
    // A hand-off heard while a compensating release was on its way: the release freed it.
    clock.handed(4, 5_100_000);
    clock.forgetHandOffs();
    expect(clock.takeGrant(1_200, 0)).toBeUndefined();
    clock.handed(5, 5_150_000);
    expect(clock.takeGrant(1_200, 0)).toBeUndefined();
    clock.queued(5_300_000, 1_250);
    clock.handed(6, 5_200_000);
    expect(clock.takeGrant(1_400, 0)).toBeUndefined();
    clock.handed(7, 5_400_000);
    expect(clock.takeGrant(1_400, 0)).toEqual({ token: 7, sentAt: 1_350 });
  });
});

import { describe, expect, it } from 'vitest';
import { candidateNames } from '../../src/cli/inspect/familyKeys.js';
import { globToRegExp, isGlob } from '../../src/cli/inspect/glob.js';

describe('Redis glob patterns, as SCAN MATCH reads them', () => {
  it.each([
    ['orders*', 'orders:1', true],
    ['orders*', 'myorders', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['[a-c]x', 'bx', true],
    ['[c-a]x', 'bx', true],
    ['[^a]x', 'ax', false],
    ['[^a]x', 'bx', true],
    ['a\\*', 'a*', true],
    ['a\\*', 'ab', false],
    ['h[\\]]y', 'h]y', true],
    ['{orders}:*', '{orders}:7', true],
    ['x-y.z', 'x-y.z', true],
    ['x-y.z', 'x-yaz', false],
    ['[]a', 'a', false],
  ])('%s matches %s: %s', (pattern, name, matches) => {
    expect(globToRegExp(pattern).test(name)).toBe(matches);
  });

  it('tells a pattern from a plain name', () => {
    expect(['orders', 'orders:1', '{orders}'].map(isGlob)).toEqual([false, false, false]);
    expect(['orders*', 'a?', '[ab]', 'a\\b'].map(isGlob)).toEqual([true, true, true, true]);
  });
});

describe('which object a key belongs to', () => {
  it.each([
    ['orders', ['orders']],
    ['redisson_lock_token:{orders}', ['orders']],
    ['redisson_lock_queue:{orders:1}', ['orders:1']],
    ['redisson_lock_timeout:{payments}', ['payments']],
    ['rxlock_waiters:{orders}', ['orders']],
    ['rxlock_holds:{pool}', ['pool']],
    ['rxlock_ops:{pool}', ['pool']],
    ['rxlock_handoff:{orders}', ['orders']],
    ['redisson_lock_token:tenant-{7}:orders', ['tenant-{7}:orders']],
    ['redisson_lock_token:plain', []],
    ['{slots}:timeout', ['slots', '{slots}:timeout']],
    ['tenant-{7}:slots:timeout', ['tenant-{7}:slots', 'tenant-{7}:slots:timeout']],
    ['{catalog}:app-1:reader-1:rwlock_timeout:2', ['catalog']],
    ['tenant-{7}:catalog:app-1:reader-1:rwlock_timeout:1', []],
  ])('%s → %j', (key, names) => {
    expect(candidateNames(key)).toEqual(names);
  });
});

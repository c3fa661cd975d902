import { describe, expect, it } from 'vitest';
import { LinkedSet } from '../src/util/LinkedSet.js';

describe('LinkedSet', () => {
  it('keeps insertion order and its size as members come and go', () => {
    const set = new LinkedSet<string>();
    const a = set.add('a');
    set.add('b');
    const c = set.add('c');
    set.delete(a);
    set.add('d');
    set.delete(c);
    set.delete(c);
    expect([...set]).toEqual(['b', 'd']);
    expect(set.size).toBe(2);
  });

  it('iterates the members present when iteration started, skipping those removed meanwhile', () => {
    const set = new LinkedSet<string>();
    const nodes = ['a', 'b', 'c'].map((value) => set.add(value));
    const seen: string[] = [];
    for (const value of set) {
      seen.push(value);
      if (value === 'a') {
        set.delete(nodes[1]!);
        set.add('late');
      }
    }
    expect(seen).toEqual(['a', 'c']);
    expect([...set]).toEqual(['a', 'c', 'late']);
  });

  // A removed node that still pointed at its neighbours would keep them alive from wherever it lingers: once
  // one node reaches V8's old generation, every younger node it links to survives each minor GC and is promoted.
  it('leaves a removed node without links to its neighbours', () => {
    const set = new LinkedSet<string>();
    const [a, b, c] = ['a', 'b', 'c'].map((value) => set.add(value));
    set.delete(b!);
    expect(b!.prev).toBeUndefined();
    expect(b!.next).toBeUndefined();
    expect(a!.next).toBe(c);
    expect(c!.prev).toBe(a);
    set.clear();
    expect(a!.next).toBeUndefined();
    expect(c!.prev).toBeUndefined();
    expect(set.size).toBe(0);
    expect([...set]).toEqual([]);
  });
});

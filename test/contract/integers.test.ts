import { expect, it } from 'vitest';
import { addPermitsScript } from '../../src/primitives/semaphore/adminScripts.js';
import { semaphoreKeys } from '../../src/primitives/semaphore/semaphoreKeys.js';
import { describeStores } from '../support/fixtures.js';

describeStores('counts as Redis keeps them', (fixture) => {
  it('adds exactly past 2^53, and refuses a count past the 64-bit range or written with leading zeros, changing nothing', async () => {
    const f = fixture();
    const addTo = (name: string, permits: number, op: string) => {
      const keys = semaphoreKeys(name);
      return f.run(addPermitsScript, [keys.count, keys.channel, keys.ops], [permits, op, 'publish']);
    };
    await f.setString('big', '9007199254740993');
    await addTo('big', 1, 'op-1');
    expect(await f.get('big')).toBe('9007199254740994');

    await f.setString('edge', '9223372036854775800');
    await expect(addTo('edge', 100, 'op-2')).rejects.toThrow(/overflow/);
    await f.setString('padded', '007');
    await expect(addTo('padded', 1, 'op-3')).rejects.toThrow(/not an integer/);
    expect([await f.get('edge'), await f.get('padded')]).toEqual(['9223372036854775800', '007']);
    await f.flush();
  });
});

import { firstValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { LockKeyTypeError } from '../../src/index.js';
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
    await expect(addTo('padded', 1, 'op-3')).rejects.toMatchObject({ code: 'wrongtype', message: 'padded string-not-an-integer' });
    expect([await f.get('edge'), await f.get('padded')]).toEqual(['9223372036854775800', '007']);
    await f.flush();
  });

  it('refuses a count that is not an integer in digits, and reads a hold count that is not a number as 0', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'c1' });
    await f.setString('half', '2.5');
    for (const refused of [
      client.semaphore('half').availablePermits(),
      client.leasedSemaphore('half').availablePermits(),
      client.latch('half').getCount(),
      firstValueFrom(client.semaphore('half').acquire$(1, { waitMs: 0 })),
      firstValueFrom(client.leasedSemaphore('half').acquire$(1, { waitMs: 0 })),
    ]) {
      const error = await refused.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect((error as LockKeyTypeError).actualType).toBe('string that is not an integer');
    }
    expect(await f.get('half')).toBe('2.5');
    await f.setHash('held', 'c1:o1', 'x', 30_000);
    expect([await client.isLocked('held'), await client.holdCount('held', 'o1')]).toEqual([true, 0]);
    await f.flush();
  });
});

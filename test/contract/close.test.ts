import { firstValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { ClientClosedError, LockLostError } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually } from '../support/leaks.js';

describeStores('close() contract', (fixture) => {
  it('releases every lease, errors held streams and pending waits, and refuses later calls', async () => {
    const f = fixture();
    const client = f.client();
    const blocker = f.client();
    const errors: unknown[] = [];
    client.lock$('held-1').subscribe({ error: (e: unknown) => errors.push(e) });
    client.lock$('held-2', { owner: 'job' }).subscribe({ error: (e: unknown) => errors.push(e) });
    const handle = await blocker.acquire('blocked');
    client.lock$('blocked').subscribe({ error: (e: unknown) => errors.push(e) });
    expect(await eventually(async () => (await client.isLocked('held-1')) && (await client.isLocked('held-2')))).toBe(true);

    await client.close();
    expect(await blocker.isLocked('held-1')).toBe(false);
    expect(await blocker.isLocked('held-2')).toBe(false);
    expect(errors).toHaveLength(3);
    expect(errors.filter((e) => e instanceof LockLostError && e.reason === 'closed')).toHaveLength(2);
    expect(errors.filter((e) => e instanceof ClientClosedError)).toHaveLength(1);

    await expect(firstValueFrom(client.lock$('after'))).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.withLock('after', () => 1)).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.isLocked('after')).rejects.toBeInstanceOf(ClientClosedError);
    await client.close();
    await handle.release();
  });
});

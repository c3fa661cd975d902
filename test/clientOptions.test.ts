import { describe, expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { createMemoryStore } from '../src/testing.js';

/** What `createLockClient` threw for these options (nothing is created, so nothing can be written). */
function refusal(options: Record<string, unknown>): Error | undefined {
  try {
    createLockClient({ store: createMemoryStore(), ...options });
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

describe('client options are checked like names (issue 41, item 9)', () => {
  it.each([
    ['a number', 5, TypeError],
    ['a boolean', true, TypeError],
    ['a negative number', -1, TypeError],
    ['an empty string', '', RangeError],
    ['a string with a space', 'a b', RangeError],
    ['a string with a control character', 'a\u0001b', RangeError],
    ['a string with ":"', 'a:b', RangeError],
    ['65 characters', 'x'.repeat(65), RangeError],
  ])('clientId: %s is refused with a typed error naming the option', (_what, clientId, type) => {
    const error = refusal({ clientId });
    expect(error).toBeInstanceOf(type);
    expect(error?.message).toContain('"clientId"');
  });

  it.each([
    ['NUL', 'app\u0000'],
    ['a newline', 'app\n'],
    ['DEL', 'app\u007f'],
    ['a lone high surrogate', 'app\ud800'],
    ['a lone low surrogate', 'app\udc00'],
  ])('keyPrefix with %s is refused with a TypeError naming the option', (_what, keyPrefix) => {
    const error = refusal({ keyPrefix });
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toContain('"keyPrefix"');
  });

  it('keyPrefix of 100,000 characters is refused with a RangeError naming the option', () => {
    const error = refusal({ keyPrefix: 'p'.repeat(100_000) });
    expect(error).toBeInstanceOf(RangeError);
    expect(error?.message).toContain('"keyPrefix"');
  });

  it('accepts what users write: a UUID or service name as clientId, a prefix with ":" and non-ASCII letters', async () => {
    const client = createLockClient({ store: createMemoryStore(), clientId: 'billing-7.eu_west', keyPrefix: 'app:überweisung:' });
    expect(client.clientId).toBe('billing-7.eu_west');
    await client.close();
  });
});

// A waiter for a lock (lock$ or fairLock$) in its own process, so a test can freeze it (SIGSTOP) while it waits.
// Prints `waiting` once subscribed, `held` when it gets the lock. Run as
// `node --import tsx waitingProbe.ts <redis port> <name> <lock|fair>`.
import { Redis } from 'ioredis';
import { createLockClient } from '../../../src/index.js';

const [port = '', name = 'parked', kind = 'lock'] = process.argv.slice(2);
const redis = new Redis({ port: Number(port), host: '127.0.0.1' });
const client = createLockClient({ redis, clientId: 'frozen' });
const lease$ = kind === 'fair' ? client.fairLock$(name) : client.lock$(name);
lease$.subscribe({ next: () => process.stdout.write('{"type":"held"}\n'), error: () => process.exit(1) });
process.stdout.write('{"type":"waiting"}\n');

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/redisServer.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';

describe('rxlock: connecting, and help on every command', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite(['--requirepass', 's3cret']);

  beforeAll(async () => {
    await server.client({ password: 's3cret' }).hset('orders', 'app:1', '1');
  });

  it('says it cannot connect, with the address, instead of retrying for ever', async () => {
    const port = await freePort();
    const result = await rxlock(['ls', '--url', `redis://127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^rxlock: cannot connect to Redis at redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    const cluster = await rxlock(['ls', '--cluster', `127.0.0.1:${port}`, '--connect-timeout', '2000']);
    expect(cluster.code).toBe(1);
    expect(cluster.stderr).toMatch(new RegExp(`^rxlock: cannot connect to Redis at 127\\.0\\.0\\.1:${port}: `));
  });

  it('passes the password through (flag, URL or REDIS_PASSWORD) and says when logging in fails', async () => {
    const port = server.port;
    const [none, wrong, flag, inUrl, fromEnv, fromUrlEnv] = await Promise.all([
      rxlock(['ls', 'orders', '--url', `redis://127.0.0.1:${port}`]),
      rxlock(['ls', 'orders', '--url', `redis://127.0.0.1:${port}`, '--user', 'default', '--password', 'nope']),
      rxlock(['ls', 'orders', '--json', '--url', `redis://127.0.0.1:${port}`, '--password', 's3cret']),
      rxlock(['ls', 'orders', '--json', '--url', `redis://:s3cret@127.0.0.1:${port}`]),
      rxlock(['ls', 'orders', '--json', '--url', `redis://127.0.0.1:${port}`], { env: { REDIS_PASSWORD: 's3cret' } }),
      rxlock(['ls', 'orders', '--json'], { env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PASSWORD: 's3cret' } }),
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(new RegExp(`^rxlock: cannot log in to Redis at redis://127\\.0\\.0\\.1:${port}: NOAUTH`));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^rxlock: cannot log in to Redis at .*WRONGPASS/);
    expect(wrong.stderr).not.toContain('nope');
    for (const ok of [flag, inUrl, fromEnv, fromUrlEnv]) {
      expect(ok.stderr).toBe('');
      expect(JSON.parse(ok.stdout)).toMatchObject([{ name: 'orders', kind: 'lock', holders: [{ id: 'app:1', holds: 1 }] }]);
    }
    expect(inUrl.stderr).not.toContain('s3cret');
  });

  it('a database the server does not have is a connection error: nothing is read or done in database 0 instead', async () => {
    const port = server.port;
    const admin = server.client({ password: 's3cret' });
    await admin.hset('doomed', 'app:1', '1');
    await admin.pexpire('doomed', 60_000);
    const url = `redis://:s3cret@127.0.0.1:${port}/99`;
    const [ls, unlock, viaQuery] = await Promise.all([
      rxlock(['ls', '--url', url]),
      rxlock(['unlock', '--force', 'doomed', '--yes', '--url', url]),
      rxlock(['ls', '--url', `redis://:s3cret@127.0.0.1:${port}?db=99`]),
    ]);
    for (const result of [ls, unlock]) {
      expect(result).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `rxlock: cannot use database 99 of Redis at redis://127.0.0.1:${port}/99: ERR DB index is out of range (check the /db of --url or REDIS_URL)\n`,
      });
    }
    expect(viaQuery).toMatchObject({ code: 1, stdout: '' });
    expect(viaQuery.stderr).toContain('cannot use database 99 of Redis');
    expect(await admin.hgetall('doomed')).toEqual({ 'app:1': '1' });
    // A database the server has is used, not database 0.
    const db3 = server.client({ password: 's3cret', db: 3 });
    await db3.hset('in-db-3', 'app:3', '1');
    const listed = await rxlock(['ls', '--json', '--url', `redis://:s3cret@127.0.0.1:${port}/3`]);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'in-db-3', holders: [{ id: 'app:3', holds: 1 }] }]);
    db3.disconnect();
    admin.disconnect();
  });

  it('rejects a bad URL or seed list as bad usage (exit code 2)', async () => {
    const [notUrl, notRedis, badDb, badSeed, unknown] = await Promise.all([
      rxlock(['ls', '--url', 'localhost']),
      rxlock(['ls', '--url', 'http://localhost:6379']),
      rxlock(['ls', '--url', `redis://127.0.0.1:${server.port}/orders`]),
      rxlock(['ls', '--cluster', 'localhost']),
      rxlock(['frobnicate']),
    ]);
    expect(notUrl).toMatchObject({ code: 2, stderr: 'rxlock: --url: "localhost" is not a URL; expected redis://host:port or rediss://host:port\n' });
    expect(notRedis).toMatchObject({ code: 2, stderr: 'rxlock: --url: "http://localhost:6379" must start with redis:// or rediss://\n' });
    expect(badDb).toMatchObject({
      code: 2,
      stderr: `rxlock: --url: "redis://127.0.0.1:${server.port}/orders" names database "orders"; expected a number, as in redis://host:port/0\n`,
    });
    expect(badSeed).toMatchObject({ code: 2, stderr: 'rxlock: --cluster: "localhost" is not host:port\n' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it('has --help on every command, showing the connection options too, and --version', async () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    const [top, ls, watch, unlock, demo, viaHelp, versionResult] = await Promise.all([
      rxlock(['--help']),
      rxlock(['ls', '--help']),
      rxlock(['watch', '--help']),
      rxlock(['unlock', '--help']),
      rxlock(['demo', '--help']),
      rxlock(['help', 'unlock']),
      rxlock(['--version']),
    ]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: rxlock \[options\] \[command\]/);
    for (const command of ['ls [options] [pattern]', 'watch [options] [pattern]', 'unlock [options] <name>', 'demo [options]'])
      expect(top.stdout).toContain(command);
    for (const [result, usage] of [
      [ls, 'Usage: rxlock ls [options] [pattern]'],
      [watch, 'Usage: rxlock watch [options] [pattern]'],
      [unlock, 'Usage: rxlock unlock [options] <name>'],
      [demo, 'Usage: rxlock demo [options]'],
      [viaHelp, 'Usage: rxlock unlock [options] <name>'],
    ] as const) {
      expect(result.code).toBe(0);
      expect(result.stdout.startsWith(usage)).toBe(true);
      expect(result.stdout).toContain('Global Options:');
      expect(result.stdout).toContain('--url <url>');
    }
    expect(ls.stdout).toContain('--json');
    expect(watch.stdout).toContain('--once');
    expect(unlock.stdout).toContain('--yes');
    expect(versionResult).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});

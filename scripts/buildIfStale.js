// @ts-check
// `npm run demo`'s first step: builds dist/ when it is missing (a fresh clone: `npm install` runs no build)
// or older than the sources it is built from, so the demo never runs stale code. Plain JavaScript, so
// that it starts at once without tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const BUILT = 'dist/demo/main.js';
const INPUTS = ['src', 'scripts/bundleApps.ts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

const builtAt = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
if (INPUTS.some((input) => newest(input) > builtAt)) {
  process.stderr.write(builtAt === 0 ? 'Building rxlock first (dist/ is missing)…\n' : 'Building rxlock first (dist/ is older than src/)…\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { status } = spawnSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = status ?? 1;
}

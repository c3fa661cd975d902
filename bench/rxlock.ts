import { pathToFileURL } from 'node:url';
import type * as Rxlock from '../src/index.js';
import type * as RxlockTesting from '../src/testing.js';

// The bench measures the built package (what users install), typed by its source so that it type-checks
// whether or not dist/ is built yet. `npm run bench` builds first. RXLOCK_DIST points it at another build
// (an absolute path to a dist/ folder) to compare an engine change against the current one.
export const dist = process.env['RXLOCK_DIST'] === undefined ? new URL('../dist', import.meta.url).href : pathToFileURL(process.env['RXLOCK_DIST']).href;
const packageEntry = `${dist}/index.js`;
const testingEntry = `${dist}/testing.js`;

export const rxlock = (await import(packageEntry)) as typeof Rxlock;
export const rxlockTesting = (await import(testingEntry)) as typeof RxlockTesting;

import { fork } from 'node:child_process';
import type { EnduranceFigures, EnduranceSettings } from './scenarios/endurance.js';
import type { ManyHeldFigures, ManyHeldSettings } from './scenarios/manyHeld.js';

/** A heap-measuring scenario for one rxlock primitive, as a child process runs it. */
export type IsolatedTask =
  | { readonly scenario: 'endurance'; readonly primitive: string; readonly settings: Omit<EnduranceSettings, 'progress'> }
  | { readonly scenario: 'held'; readonly primitive: string; readonly settings: ManyHeldSettings };

/** What a child sends its parent: progress lines, then the figures or an error. */
export type IsolatedMessage = { readonly progress: string } | { readonly figures: EnduranceFigures | ManyHeldFigures } | { readonly error: string };

/** The environment variables that carry a task and the server's URL (not argv: a REDIS_URL may hold a password). */
export const TASK_ENV = 'RXLOCK_BENCH_TASK';
export const URL_ENV = 'RXLOCK_BENCH_URL';

/**
 * Runs one heap-measuring scenario in a fresh Node process (this one's flags: `--expose-gc`, tsx) against the
 * same server, so that its heap holds nothing of the scenarios before it: closed clients of other libraries
 * stay in a heap until their timers let go of them, and freeing them during a measurement reads as a heap
 * that shrank.
 */
export function runIsolated<F extends EnduranceFigures | ManyHeldFigures>(task: IsolatedTask, url: string, progress: (line: string) => void): Promise<F> {
  return new Promise<F>((resolve, reject) => {
    const child = fork(new URL('./isolatedChild.ts', import.meta.url), {
      env: { ...process.env, [TASK_ENV]: JSON.stringify(task), [URL_ENV]: url },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: F | undefined;
    let failure: string | undefined;
    child.on('message', (message: IsolatedMessage) => {
      if ('progress' in message) progress(message.progress);
      else if ('figures' in message) result = message.figures as F;
      else failure = message.error;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result !== undefined) resolve(result);
      else
        reject(new Error(`bench: ${task.scenario} of ${task.primitive} failed in its child process (exit code ${String(code)}): ${failure ?? 'no figures'}`));
    });
  });
}

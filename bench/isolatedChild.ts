import { RXLOCK_PRIMITIVES } from './contenders/rxlockObservables.js';
import { TASK_ENV, URL_ENV, type IsolatedMessage, type IsolatedTask } from './isolated.js';
import { runEndurance } from './scenarios/endurance.js';
import { runManyHeld } from './scenarios/manyHeld.js';
import { openServer } from './server.js';

// One heap-measuring scenario in a process of its own (see `runIsolated`); the parent passes the task and
// the server's URL in the environment and hears back over IPC.
const send = (message: IsolatedMessage): void => {
  process.send?.(message);
};
const taskJson = process.env[TASK_ENV];
const url = process.env[URL_ENV];
// Without them this would start a redis-server of its own and measure against another server than the run.
if (taskJson === undefined || url === undefined) throw new Error(`bench: isolatedChild.ts runs only as runIsolated's child (${TASK_ENV}, ${URL_ENV})`);
const task = JSON.parse(taskJson) as IsolatedTask;
const server = await openServer(url);
try {
  const primitive = RXLOCK_PRIMITIVES.find((candidate) => candidate.id === task.primitive);
  if (primitive === undefined) throw new Error(`unknown rxlock primitive ${JSON.stringify(task.primitive)}`);
  const figures =
    task.scenario === 'endurance'
      ? await runEndurance(server, primitive, { ...task.settings, progress: (line) => send({ progress: line }) })
      : await runManyHeld(server, primitive, task.settings);
  send({ figures });
} catch (error) {
  send({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
} finally {
  await server.stop();
  if (process.connected) process.disconnect();
}

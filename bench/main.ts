import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CONTENDERS } from './contenders/index.js';
import { DEFAULT_OPTIONS, SCENARIO_IDS, SMOKE_OPTIONS, type BenchOptions, type ScenarioId } from './options.js';
import { renderMarkdown, renderTerminal } from './report/render.js';
import { runBench } from './runBench.js';

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  return parsed;
}

function listOf<T extends string>(known: readonly T[]) {
  return (value: string): T[] => {
    const items = value.split(',').map((item) => item.trim());
    const unknown = items.filter((item) => !known.includes(item as T));
    if (unknown.length > 0) throw new InvalidArgumentError(`unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
    return items as T[];
  };
}

interface Flags {
  smoke?: boolean;
  window?: number;
  rounds?: number;
  scenarios?: ScenarioId[];
  contenders?: string[];
  heldLocks?: number;
  heldWatchdog?: number;
  heldTicks?: number;
  enduranceCycles?: number;
  json?: string;
  markdown?: string;
}

const program = new Command()
  .name('npm run bench --')
  .description('rxlock against redis-semaphore, redlock, a naive SET NX lock and a floor, in one run against one redis-server.')
  .option('--smoke', 'a run of a few seconds that exercises every path (figures mean nothing)')
  .option('--window <ms>', `window per contender per round (default ${DEFAULT_OPTIONS.windowMs})`, positiveInteger)
  .option('--rounds <n>', `interleaved rounds (default ${DEFAULT_OPTIONS.rounds})`, positiveInteger)
  .addOption(new Option('--scenarios <list>', `comma-separated: ${SCENARIO_IDS.join(', ')} (default all)`).argParser(listOf(SCENARIO_IDS)))
  .addOption(
    new Option('--contenders <list>', `comma-separated: ${CONTENDERS.map((c) => c.id).join(', ')} (default all)`).argParser(
      listOf(CONTENDERS.map((c) => c.id)),
    ),
  )
  .option('--held-locks <n>', `locks held in the many-held scenario (default ${DEFAULT_OPTIONS.heldLocks})`, positiveInteger)
  .option('--held-watchdog <ms>', `watchdogTimeoutMs there (default ${DEFAULT_OPTIONS.heldWatchdogMs})`, positiveInteger)
  .option('--held-ticks <n>', `renewal ticks observed (default ${DEFAULT_OPTIONS.heldTicks})`, positiveInteger)
  .option('--endurance-cycles <n>', `measured endurance cycles (default ${DEFAULT_OPTIONS.enduranceCycles})`, positiveInteger)
  .option('--json <file>', 'also write every figure as JSON')
  .option('--markdown <file>', 'also write the tables as Markdown')
  .addHelpText('after', '\nREDIS_URL=redis://host:port uses that server instead of starting redis-server on a free loopback port.');

program.parse();
const flags = program.opts<Flags>();
const base = flags.smoke === true ? SMOKE_OPTIONS : DEFAULT_OPTIONS;
const options: BenchOptions = {
  ...base,
  windowMs: flags.window ?? base.windowMs,
  rounds: flags.rounds ?? base.rounds,
  scenarios: flags.scenarios ?? base.scenarios,
  contenders: flags.contenders ?? base.contenders,
  heldLocks: flags.heldLocks ?? base.heldLocks,
  heldWatchdogMs: flags.heldWatchdog ?? base.heldWatchdogMs,
  heldTicks: flags.heldTicks ?? base.heldTicks,
  enduranceCycles: flags.enduranceCycles ?? base.enduranceCycles,
  redisUrl: process.env['REDIS_URL'] || undefined,
};

const results = await runBench(options, (line) => process.stderr.write(`${line}\n`));
process.stdout.write(`\n${renderTerminal(results)}`);
if (flags.json !== undefined) writeFileSync(flags.json, `${JSON.stringify(results, null, 2)}\n`);
if (flags.markdown !== undefined) writeFileSync(flags.markdown, renderMarkdown(results));
const overlaps =
  results.lockScenarios.flatMap((s) => s.figures).reduce((sum, f) => sum + f.overlaps, 0) + results.endurance.reduce((sum, r) => sum + r.overlaps, 0);
if (overlaps > 0) {
  process.stderr.write(`\n${overlaps} OVERLAPS: two holders of one lock at once.\n`);
  process.exitCode = 1;
}

#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { runDemo } from './runDemo.js';

function positive(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
}

const program = new Command('rxlock-demo')
  .description('Several workers contend for one lock: a board redrawn in place on a terminal, a plain log otherwise, then a summary.')
  .option('-d, --duration <seconds>', 'how long to run', positive, 6)
  .option('-w, --workers <count>', 'how many contending workers', positive, 4)
  .option('--url <redis-url>', 'Redis to use (default: REDIS_URL, else a redis-server started for the demo, else memory)')
  .parse();

const options = program.opts<{ duration: number; workers: number; url?: string }>();
const summary = await runDemo({ durationMs: options.duration * 1000, workers: Math.floor(options.workers), url: options.url });
process.exitCode = summary.overlaps === 0 && summary.tokensIncreasing ? 0 : 1;

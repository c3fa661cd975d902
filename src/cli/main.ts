#!/usr/bin/env node
import { processIo } from './processIo.js';
import { runCli } from './runCli.js';

process.exitCode = await runCli(process.argv, processIo);

// Loaded with --import (through NODE_OPTIONS, so that child processes get it too): resolves every @nestjs/*
// package from the NestJS 12 install in .tmp/nest12 instead of the repository's NestJS 11.
import { register } from 'node:module';

register('./resolveHook.js', import.meta.url);

// Module resolution hook: @nestjs/* from .tmp/nest12/node_modules, whoever imports it.
import { pathToFileURL } from 'node:url';
import { resolve as resolvePath } from 'node:path';

const nest12 = pathToFileURL(resolvePath(import.meta.dirname, '../../.tmp/nest12/package.json')).href;

// eslint-disable-next-line @typescript-eslint/explicit-module-boundary-types -- plain JavaScript: Node loads it as a hook, untranspiled
export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('@nestjs/')) return nextResolve(specifier, { ...context, parentURL: nest12 });
  return nextResolve(specifier, context);
}

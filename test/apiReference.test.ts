import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** typedoc.json, which may carry comments (TypeDoc reads it as TypeScript reads tsconfig.json). */
function typedocEntryPoints(): string[] {
  const parsed = ts.parseConfigFileTextToJson('typedoc.json', readFileSync(join(root, 'typedoc.json'), 'utf8'));
  if (parsed.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(parsed.error.messageText, '\n'));
  return (parsed.config as { entryPoints: string[] }).entryPoints;
}

describe('the API reference (npm run docs)', () => {
  it('documents every subpath of package.json "exports", from the source each is built from', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
    const sources = Object.entries(manifest.exports)
      .filter(([subpath]) => subpath !== './package.json')
      .map(([, target]) => (typeof target === 'string' ? target : target.default).replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    expect(sources.length).toBeGreaterThanOrEqual(3);
    expect(sources.filter((source) => !typedocEntryPoints().includes(source))).toEqual([]);
  });
});

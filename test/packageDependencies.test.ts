import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const installedWithRxlock = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
const builtins = new Set(builtinModules);

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => pattern.test(file))
    .map((file) => join(dir, file));
}

/** The packages a file imports or requires, by name (`@scope/name`, `name`), Node's built-ins left out. */
function packagesImportedBy(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => !name.startsWith('.') && !name.startsWith('node:') && !builtins.has(name.split('/')[0]!))
    .map((name) =>
      name
        .split('/')
        .slice(0, name.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

function undeclaredImports(files: string[]): string[] {
  return files.flatMap((file) =>
    packagesImportedBy(file)
      .filter((name) => !installedWithRxlock.has(name))
      .map((name) => `${relative(root, file)}: ${name}`),
  );
}

describe('what installing rxlock brings', () => {
  const librarySources = filesUnder(join(root, 'src'), /\.ts$/).filter((file) => !/\/src\/(cli|demo)\//.test(file));

  it('the library imports only its dependencies and peer dependencies', () => {
    expect(librarySources.length).toBeGreaterThan(50);
    expect(undeclaredImports(librarySources)).toEqual([]);
  });

  it('every runtime dependency is one the library itself imports (the command line’s are bundled)', () => {
    const imported = new Set(librarySources.flatMap(packagesImportedBy));
    expect(Object.keys(manifest.dependencies ?? {}).filter((name) => !imported.has(name))).toEqual([]);
  });

  it('the built command line and demo import nothing that a user’s install lacks', () => {
    const bundles = [join(root, 'dist/cli/main.js'), join(root, 'dist/demo/main.js'), ...filesUnder(join(root, 'dist/apps'), /\.js$/)];
    expect(bundles.length).toBeGreaterThan(2);
    expect(undeclaredImports(bundles)).toEqual([]);
    expect(readFileSync(join(root, 'dist/THIRD_PARTY_LICENSES.md'), 'utf8')).toMatch(/^## commander /m);
  });
});

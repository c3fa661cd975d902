import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import semver from 'semver';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
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

  it('the library imports no Redis client library, not even for types, and its published types name none', () => {
    // Both clients are optional peers: a project installs the one it uses, and rxlock recognises it by shape.
    const clients = new Set(['ioredis', 'redis', 'iovalkey', '@redis/client']);
    const imported = librarySources.flatMap((file) =>
      packagesImportedBy(file)
        .filter((name) => clients.has(name))
        .map((name) => `${relative(root, file)}: ${name}`),
    );
    expect(imported).toEqual([]);
    const declarations = filesUnder(join(root, 'dist'), /\.d\.ts$/).filter((file) => !/\/dist\/(cli|demo|apps)\//.test(file));
    expect(declarations.length).toBeGreaterThan(20);
    expect(
      declarations.flatMap((file) =>
        packagesImportedBy(file)
          .filter((name) => clients.has(name))
          .map((name) => `${relative(root, file)}: ${name}`),
      ),
    ).toEqual([]);
    expect(manifest.peerDependenciesMeta?.ioredis?.optional).toBe(true);
    expect(manifest.peerDependenciesMeta?.redis?.optional).toBe(true);
  });

  it('every Redis client version the tests run on is inside the peer range, so that npm installs rxlock beside it', () => {
    // npm refuses (ERESOLVE) to install a package beside a peer outside its range, optional or not.
    const tested = { redis: 'redis', redis4: 'redis', redis6: 'redis', ioredis: 'ioredis', ioredis6: 'ioredis' } as const;
    const outside = Object.entries(tested).flatMap(([installed, peer]) => {
      const { version } = JSON.parse(readFileSync(join(root, 'node_modules', installed, 'package.json'), 'utf8')) as { version: string };
      const range = manifest.peerDependencies?.[peer] ?? '';
      return semver.satisfies(version, range) ? [] : [`${installed}: ${peer}@${version} is not in ${JSON.stringify(range)}`];
    });
    expect(outside).toEqual([]);
  });

  it('every runtime dependency is one the library itself imports (the command line’s are bundled)', () => {
    const imported = new Set(librarySources.flatMap(packagesImportedBy));
    expect(Object.keys(manifest.dependencies ?? {}).filter((name) => !imported.has(name))).toEqual([]);
  });

  it('the core imports no NestJS package: only rxlock/nestjs does', () => {
    const core = librarySources.filter((file) => !file.includes('/src/nestjs/'));
    const nest = (name: string) => name.startsWith('@nestjs/') || name === 'reflect-metadata';
    expect(
      core.flatMap((file) =>
        packagesImportedBy(file)
          .filter(nest)
          .map((name) => `${relative(root, file)}: ${name}`),
      ),
    ).toEqual([]);
  });

  it('rxlock/nestjs (its sources and dist/nestjs) imports only NestJS, rxjs and rxlock’s own files', () => {
    const allowed = new Set(['@nestjs/common', '@nestjs/core', 'rxjs']);
    const sources = filesUnder(join(root, 'src/nestjs'), /\.ts$/);
    const built = filesUnder(join(root, 'dist/nestjs'), /\.js$/);
    expect(sources.length).toBeGreaterThan(5);
    expect(built.length).toBe(sources.length);
    const outside = [...sources, ...built].flatMap((file) =>
      packagesImportedBy(file)
        .filter((name) => !allowed.has(name))
        .map((name) => `${relative(root, file)}: ${name}`),
    );
    expect(outside).toEqual([]);
    // Its relative imports stay inside the package's own build.
    const escaping = built.flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map(({ fileName }) => fileName)
        .filter((name) => name.startsWith('.') && !resolve(dirname(file), name).startsWith(join(root, 'dist') + sep))
        .map((name) => `${relative(root, file)}: ${name}`),
    );
    expect(escaping).toEqual([]);
  });

  it('the built command line and demo import nothing that a user’s install lacks', () => {
    // Each is one file with everything it uses bundled in (scripts/bundleApps.ts): it imports Node's built-ins only.
    const bundles = [join(root, 'dist/cli/main.js'), join(root, 'dist/demo/main.js')];
    expect(bundles.map(packagesImportedBy)).toEqual([[], []]);
    expect(undeclaredImports(bundles)).toEqual([]);
    expect(readFileSync(join(root, 'dist/THIRD_PARTY_LICENSES.md'), 'utf8')).toMatch(/^## commander /m);
  });
});

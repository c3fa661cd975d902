import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

interface PackedFile {
  readonly path: string;
  readonly size: number;
}

interface Manifest {
  readonly main?: string;
  readonly types?: string;
  readonly exports?: unknown;
  readonly typesVersions?: unknown;
  readonly bin?: string | Record<string, string>;
  readonly scripts?: Record<string, string>;
}

/** The files `npm pack` would put in the tarball, from the current dist/ (`npm test` builds it first; scripts are not run). */
function packedFiles(): { files: PackedFile[]; unpackedSize: number } {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [pack] = JSON.parse(output) as { files: PackedFile[]; unpackedSize: number }[];
  if (pack === undefined) throw new Error('npm pack --dry-run --json printed no package');
  return pack;
}

/** Every string in `value`: the targets of `exports` conditions and of `typesVersions` mappings, however nested. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

/** The files the manifest points at (entry points, their types, the command line), as packed paths. */
function manifestTargets(manifest: Manifest): string[] {
  const bin = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return [manifest.main, manifest.types, ...strings(manifest.exports), ...strings(manifest.typesVersions), ...bin]
    .filter((target) => target !== undefined)
    .map((target) => normalize(target));
}

/** Relative imports of a packed .js or .d.ts file, as packed paths (a .d.ts imports its siblings' `.js` names). */
function relativeImports(path: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, path), 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => {
      const target = normalize(join(dirname(path), name));
      return path.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
    });
}

/** Files a user needs besides the code: npm always packs package.json, README and LICENSE; the changelog is listed in `files`. */
const TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);
/** The licenses of the libraries bundled into the command line (scripts/bundleApps.ts). */
const BUNDLE_NOTICES = 'dist/THIRD_PARTY_LICENSES.md';
/**
 * Room for what the package ships (about 1.5 MB with rxlock/nestjs and both client drivers; 0.6 MB of it the command
 * line's bundle) and a little more: a file that should not ship shows here first.
 */
const MAX_UNPACKED_BYTES = 1_750_000;

describe('the published tarball (npm pack --dry-run)', { timeout: 60_000 }, () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const pack = packedFiles();
  const paths = pack.files.map((file) => file.path);
  const packed = new Set(paths);

  it('holds the built code and the notes a user reads, nothing else: no sources, tests, benchmarks or maps', () => {
    const unexpected = paths.filter(
      (path) => !TOP_LEVEL.has(path) && path !== BUNDLE_NOTICES && !(path.startsWith('dist/') && (path.endsWith('.js') || path.endsWith('.d.ts'))),
    );
    expect(unexpected).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md', 'README.md']));
    // The demo's own entry is for `npm run demo` in a clone; users run it as `rxlock demo`.
    expect(paths.filter((path) => path.startsWith('dist/demo/'))).toEqual([]);
  });

  it('holds every file package.json points at: main, types, each exports and typesVersions target, the bin', () => {
    const targets = manifestTargets(manifest).filter((target) => target !== 'package.json');
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.filter((target) => !packed.has(target))).toEqual([]);
  });

  it('every relative import of a packed module is packed too', () => {
    const code = paths.filter((path) => path.endsWith('.js') || path.endsWith('.d.ts'));
    const dangling = code.flatMap((path) =>
      relativeImports(path)
        .filter((target) => !packed.has(target))
        .map((target) => `${path} → ${target}`),
    );
    expect(dangling).toEqual([]);
  });

  it('carries the licenses of the libraries bundled into the command line', () => {
    expect(packed.has(BUNDLE_NOTICES)).toBe(true);
  });

  it(`stays under ${MAX_UNPACKED_BYTES / 1_000_000} MB unpacked`, () => {
    expect(pack.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it('runs no script when installed', () => {
    const installScripts = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => manifest.scripts?.[name] !== undefined);
    expect(installScripts).toEqual([]);
  });
});

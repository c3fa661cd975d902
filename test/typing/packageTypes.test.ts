import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/**
 * The published entry points as a TypeScript user resolves them: a project with `rxlock` in its node_modules
 * (a link to this package and its built `dist/`), compiled under each module resolution a user may have.
 */
describe('the package’s types resolve from a user’s project', { timeout: 60_000 }, () => {
  const project = mkdtempSync(join(tmpdir(), 'rxlock-types-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'rxlock'), 'dir');
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
  const main = join(project, 'main.ts');
  writeFileSync(
    main,
    [
      "import { createLockClient, type Lease } from 'rxlock';",
      "import { createMemoryStore } from 'rxlock/testing';",
      "import { instrumentLocks } from 'rxlock/otel';",
      "import { RxlockModule, WithLock } from 'rxlock/nestjs';",
      'export const used: [typeof createLockClient, typeof createMemoryStore, typeof instrumentLocks, Lease?] = [createLockClient, createMemoryStore, instrumentLocks];',
      'export const nest: [typeof RxlockModule, typeof WithLock] = [RxlockModule, WithLock];',
      '',
    ].join('\n'),
  );
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const errorsUnder = (options: ts.CompilerOptions): string[] => {
    const program = ts.createProgram([main], { strict: true, noEmit: true, skipLibCheck: true, types: [], target: ts.ScriptTarget.ES2022, ...options });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  };

  it('with classic "node" resolution (what "module": "commonjs" implies): rxlock/testing, rxlock/otel and rxlock/nestjs through typesVersions', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated in TypeScript 6, still what such projects compile with
    const node10 = ts.ModuleResolutionKind.Node10;
    expect(errorsUnder({ module: ts.ModuleKind.CommonJS, moduleResolution: node10, ignoreDeprecations: '6.0' })).toEqual([]);
  });

  it('with node16, nodenext and bundler resolution: through exports', () => {
    expect(errorsUnder({ module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 })).toEqual([]);
    expect(errorsUnder({ module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext })).toEqual([]);
    expect(errorsUnder({ module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler })).toEqual([]);
  });

  it('its declaration files compile as they are (without skipLibCheck)', () => {
    const typeRoots = [join(root, 'node_modules/@types')];
    expect(
      errorsUnder({ module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: false, types: ['node'], typeRoots }),
    ).toEqual([]);
  });
});

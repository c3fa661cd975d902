import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { allCodeBlocks, codeBlocks, type CodeBlock } from '../support/markdownBlocks.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const scopeFile = join(here, 'docsScope.ts');
const src = (path: string): string => join(root, 'src', path);

// Files the program below holds in memory only.
const virtual = {
  scope: join(here, 'docsScope.virtual.mts'),
  globals: join(here, 'docsScope.globals.d.mts'),
};

interface Source {
  readonly file: string;
  readonly text: string;
  /** How a diagnostic in this file is named: `docs/lock.md:12`, counting from this line. */
  readonly place?: { readonly page: string; readonly firstLine: number };
}

// NestJS's decorators are TypeScript's legacy ones, which docs/nestjs.md and examples/nestjs need (the page tells
// its readers to turn them on): tsconfig.nestjs.json is tsconfig.json with them. No other block uses decorators.
function compilerOptions(paths: Record<string, string>): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.nestjs.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (config === undefined) throw new Error('tsconfig.nestjs.json could not be read');
  return { ...config.options, noEmit: true, paths: Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, [path]])) };
}

/** Each diagnostic of the program as `<place>:<line>: <message>`. */
function typeErrors(sources: readonly Source[], rootFiles: readonly string[], paths: Record<string, string>): string[] {
  const texts = new Map(sources.map((source) => [source.file, source.text]));
  const options = compilerOptions(paths);
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    fileExists: (file) => texts.has(file) || base.fileExists(file),
    readFile: (file) => texts.get(file) ?? base.readFile(file),
    getSourceFile: (file, language, ...rest) => {
      const text = texts.get(file);
      return text === undefined ? base.getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language);
    },
  };
  const program = ts.createProgram([...rootFiles], options, host);
  const byFile = new Map(sources.map((source) => [source.file, source]));
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const place = byFile.get(diagnostic.file.fileName)?.place;
    return place === undefined ? `${relative(root, diagnostic.file.fileName)}:${line + 1}: ${message}` : `${place.page}:${place.firstLine + line}: ${message}`;
  });
}

// `rxlock` and its subpaths are the sources, so that no build is needed for the check.
const PATHS = {
  rxlock: src('index.ts'),
  'rxlock/testing': src('testing.ts'),
  'rxlock/otel': src('otel/index.ts'),
  'rxlock/nestjs': src('nestjs/index.ts'),
};

/** The names `docsScope.ts` exports, declared as globals of the docs' blocks. */
function scopeSources(): Source[] {
  const text = readFileSync(scopeFile, 'utf8').replaceAll("'../../src/index.js'", "'rxlock'");
  const source = ts.createSourceFile(scopeFile, text, ts.ScriptTarget.Latest);
  const names: string[] = [];
  // Classes are types too: `type X = scope.X` beside the value.
  const classes: string[] = [];
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) === true;
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    } else if (exported && ts.isVariableStatement(statement)) {
      names.push(...statement.declarationList.declarations.map((declaration) => declaration.name.getText(source)));
    } else if (exported && ts.isFunctionDeclaration(statement) && statement.name) {
      names.push(statement.name.text);
    } else if (exported && ts.isClassDeclaration(statement) && statement.name) {
      names.push(statement.name.text);
      classes.push(statement.name.text);
    }
  }
  const declarations = [...names.map((name) => `  const ${name}: typeof scope.${name};`), ...classes.map((name) => `  type ${name} = scope.${name};`)].join(
    '\n',
  );
  return [
    { file: virtual.scope, text },
    { file: virtual.globals, text: `import type * as scope from './docsScope.virtual.mjs';\ndeclare global {\n${declarations}\n}\nexport {};\n` },
  ];
}

/** A block as a module of its own; an elision `…` in code (not in a comment) becomes a comment. */
function blockSource(block: CodeBlock, index: number): Source {
  const code = block.code
    .split('\n')
    .map((line) => (line.trimStart().startsWith('//') ? line : line.replaceAll('…', '/* … */')))
    .join('\n');
  return { file: join(here, `block-${index}.mts`), text: `${code}\nexport {};\n`, place: { page: block.page, firstLine: block.firstLine } };
}

function exampleFiles(dir = join(root, 'examples')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? exampleFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

// A wrong block, checked in the same program, shows that the check would catch one.
const WRONG = ['Text', '', '```ts', 'const { lock$ } = createLockClient({ redis });', "lock$('x', { waitMs: '5s' }).subscribe();", '```', ''].join('\n');

it('type-checks every TypeScript block of the README and docs/, and every program of examples/, in strict mode', () => {
  const blocks = allCodeBlocks(root);
  expect(blocks.filter((block) => block.mode !== 'excerpt').length).toBeGreaterThanOrEqual(50);
  const sources = [...scopeSources(), ...[...blocks.filter((block) => block.mode !== 'excerpt'), ...codeBlocks(WRONG, 'wrong.md')].map(blockSource)];
  const docErrors = typeErrors(
    sources,
    sources.map((source) => source.file),
    PATHS,
  );
  expect(docErrors.filter((error) => error.startsWith('wrong.md:'))).toEqual([
    expect.stringMatching(/^wrong\.md:5: .*'string' is not assignable to type 'number'/s),
  ]);
  expect(docErrors.filter((error) => !error.startsWith('wrong.md:'))).toEqual([]);

  // The examples see no scope: each is a program a user can copy as it is.
  const examples = exampleFiles();
  expect(examples.length).toBeGreaterThanOrEqual(8);
  expect(typeErrors([], examples, PATHS)).toEqual([]);
}, 120_000);

it('finds every `ts from=PATH` excerpt verbatim in its file', () => {
  const excerpts = allCodeBlocks(root).filter((block) => block.mode === 'excerpt');
  expect(excerpts.length).toBeGreaterThan(0);
  const stale = excerpts.filter((block) => !readFileSync(join(root, block.from!), 'utf8').includes(block.code));
  expect(stale.map((block) => `${block.page}:${block.firstLine}: not found verbatim in ${block.from!}`)).toEqual([]);
});

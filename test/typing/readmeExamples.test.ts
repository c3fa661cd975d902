import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const scopeFile = join(here, 'readmeScope.ts');
const globalsFile = join(here, 'readmeScope.globals.d.mts');

interface Example {
  /** Where the example is, for messages: `README.md:<line>`. */
  readonly place: string;
  readonly file: string;
  /** The README line of the example's first line of code. */
  readonly firstLine: number;
  readonly code: string;
}

/** Every ```ts block of a markdown file, as a module of its own; an elision `…` in code becomes a comment. */
function examplesOf(markdown: string, name: string): Example[] {
  const examples: Example[] = [];
  const lines = markdown.split('\n');
  for (let at = 0; at < lines.length; at++) {
    if (lines[at] !== '```ts') continue;
    const end = lines.indexOf('```', at + 1);
    const code = lines.slice(at + 1, end).map((line) => (line.trimStart().startsWith('//') ? line : line.replaceAll('…', '/* … */')));
    examples.push({ place: name, file: join(here, `${name}.line-${at + 2}.mts`), firstLine: at + 2, code: `${code.join('\n')}\nexport {};\n` });
    at = end;
  }
  return examples;
}

/** The names `readmeScope.ts` exports, declared as globals of the examples' program. */
function scopeGlobals(): string {
  const source = ts.createSourceFile(scopeFile, readFileSync(scopeFile, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) === true;
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    } else if (exported && ts.isVariableStatement(statement)) {
      names.push(...statement.declarationList.declarations.map((declaration) => declaration.name.getText(source)));
    } else if (exported && ts.isFunctionDeclaration(statement) && statement.name) {
      names.push(statement.name.text);
    }
  }
  const declarations = names.map((name) => `  const ${name}: typeof scope.${name};`).join('\n');
  return `import type * as scope from './readmeScope.js';\ndeclare global {\n${declarations}\n}\nexport {};\n`;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const entry = (path: string) => [join(root, path)];
  return {
    ...config.options,
    noEmit: true,
    paths: { rxlock: entry('src/index.ts'), 'rxlock/testing': entry('src/testing.ts'), 'rxlock/otel': entry('src/otel/index.ts') },
  };
}

/** Each diagnostic as `<markdown file>:<line>: <message>` (or its own file, for one outside the examples). */
function typeErrors(examples: readonly Example[]): string[] {
  const virtual = new Map<string, string>([[globalsFile, scopeGlobals()], ...examples.map((e): [string, string] => [e.file, e.code])]);
  const options = compilerOptions();
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    fileExists: (file) => virtual.has(file) || base.fileExists(file),
    readFile: (file) => virtual.get(file) ?? base.readFile(file),
    getSourceFile: (file, language, ...rest) => {
      const text = virtual.get(file);
      return text === undefined ? base.getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language);
    },
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const byFile = new Map(examples.map((e) => [e.file, e]));
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const example = byFile.get(diagnostic.file.fileName);
    return example === undefined ? `${diagnostic.file.fileName}:${line + 1}: ${message}` : `${example.place}:${example.firstLine + line}: ${message}`;
  });
}

// A wrong example, checked in the same program, shows that the check would catch one (one program: ~3 s).
const WRONG = ['Text', '', '```ts', 'const { lock$ } = createLockClient({ redis });', "lock$('x', { waitMs: '5s' }).subscribe();", '```', ''].join('\n');

it('type-checks every TypeScript example of the README in strict mode', () => {
  const examples = examplesOf(readFileSync(join(root, 'README.md'), 'utf8'), 'README.md');
  expect(examples.length).toBeGreaterThanOrEqual(15);
  const errors = typeErrors([...examples, ...examplesOf(WRONG, 'wrong.md')]);
  expect(errors.filter((error) => !error.startsWith('README.md:'))).toEqual([
    expect.stringMatching(/^wrong\.md:5: .*'string' is not assignable to type 'number'/s),
  ]);
  expect(errors.filter((error) => error.startsWith('README.md:'))).toEqual([]);
}, 60_000);

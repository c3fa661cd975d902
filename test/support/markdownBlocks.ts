import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A fenced TypeScript block of a markdown page. The info string says what the docs checks do with it
 * (CONTRIBUTING.md, "Code blocks in the docs"):
 * - ```ts            type-checked, as a module of its own;
 * - ```ts run        type-checked, then run with `node --import tsx`; its `// prints: …` comments are the output;
 * - ```ts from=PATH  an excerpt of the file PATH, which must contain it verbatim (the file itself is checked).
 */
export interface CodeBlock {
  /** The page, relative to the repository: `docs/testing.md`. */
  readonly page: string;
  /** The page's line of the block's first line of code. */
  readonly firstLine: number;
  readonly mode: 'check' | 'run' | 'excerpt';
  /** For `from=PATH`: the file, relative to the repository. */
  readonly from: string | undefined;
  readonly code: string;
}

const FENCE = /^```ts(?:\s+(run|from=(\S+)))?\s*$/;

/** Every ```ts block of one page; any other fence (```sh, ```java, ```text) is skipped whole. */
export function codeBlocks(markdown: string, page: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    if (!line.startsWith('```')) continue;
    const end = lines.findIndex((candidate, index) => index > at && candidate.startsWith('```'));
    if (end === -1) throw new Error(`${page}:${at + 1}: a code fence that never closes`);
    const match = FENCE.exec(line);
    if (match !== null) {
      const mode = match[1] === 'run' ? 'run' : match[2] !== undefined ? 'excerpt' : 'check';
      blocks.push({ page, firstLine: at + 2, mode, from: match[2], code: lines.slice(at + 1, end).join('\n') });
    } else if (line.startsWith('```ts')) {
      throw new Error(`${page}:${at + 1}: unknown info string "${line}" (use \`\`\`ts, \`\`\`ts run or \`\`\`ts from=PATH)`);
    }
    at = end;
  }
  return blocks;
}

/** The user pages whose blocks are checked: README.md, CONTRIBUTING.md and every page under docs/. */
export function documentationPages(root: string): string[] {
  const pages = ['README.md', 'CONTRIBUTING.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages.filter((page) => {
    try {
      readFileSync(join(root, page));
      return true;
    } catch {
      return false;
    }
  });
}

/** Every code block of every documentation page. */
export function allCodeBlocks(root: string): CodeBlock[] {
  return documentationPages(root).flatMap((page) => codeBlocks(readFileSync(join(root, page), 'utf8'), relative(root, join(root, page))));
}

/**
 * The output a `ts run` block claims, one line per `// prints: …` comment, in the order they appear.
 * A `…` in a claimed line stands for any text.
 */
export function claimedOutput(code: string): string[] {
  return [...code.matchAll(/\/\/ prints: (.*)$/gm)].map((match) => match[1]!.trimEnd());
}

/** Whether an output line is what a claimed line says (`…` matches any text). */
export function matchesClaim(line: string, claim: string): boolean {
  const pattern = claim
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(line);
}

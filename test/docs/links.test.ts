import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { documentationPages } from '../support/markdownBlocks.js';

// Every relative link of the README, CONTRIBUTING, docs/ and examples/README.md leads to a file of the
// repository, and a link with a #fragment to a heading of that page (GitHub's anchors).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(root, page), 'utf8').replaceAll(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

it('resolves every relative link of the docs', () => {
  const pages = [...documentationPages(root), 'examples/README.md'];
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8').replaceAll(/^```[\s\S]*?^```/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path = '', fragment] = target!.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      if (!existsSync(join(root, file))) broken.push(`${page}: ${target!} (no file ${file})`);
      else if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment)) broken.push(`${page}: ${target!} (no heading #${fragment})`);
    }
  }
  expect(pages.length).toBeGreaterThan(20);
  expect(broken).toEqual([]);
});

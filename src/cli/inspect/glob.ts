/** Whether a pattern uses Redis glob syntax (`*`, `?`, `[…]`, `\`); without any it names one object. */
export function isGlob(pattern: string): boolean {
  return /[*?[\\]/.test(pattern);
}

const escapeRegExp = (char: string): string => char.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const escapeInClass = (char: string): string => char.replace(/[\\^\]-]/g, '\\$&');

/** A RegExp matching exactly what Redis' `stringmatchlen` (SCAN MATCH, KEYS) matches for `glob`. */
export function globToRegExp(glob: string): RegExp {
  // Code points: a character class must not split a surrogate pair.
  const chars = Array.from(glob);
  let source = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] ?? '';
    if (char === '\\' && i + 1 < chars.length) {
      source += escapeRegExp(chars[++i] ?? '');
    } else if (char === '*') {
      source += '[\\s\\S]*';
    } else if (char === '?') {
      source += '[\\s\\S]';
    } else if (char === '[' && classEnd(chars, i + 1) !== -1) {
      const end = classEnd(chars, i + 1);
      source += characterClass(chars.slice(i + 1, end));
      i = end;
    } else {
      source += escapeRegExp(char);
    }
  }
  return new RegExp(`^${source}$`, 'u');
}

/** The index of the `]` closing a class that starts at `from`, skipping escaped characters; -1 if unterminated. */
function classEnd(chars: string[], from: number): number {
  for (let j = from; j < chars.length; j++) {
    if (chars[j] === '\\') j++;
    else if (chars[j] === ']') return j;
  }
  return -1;
}

/** `[^a-c\]x]` in Redis' dialect: `^` negates, ranges may be given backwards, `\` escapes. */
function characterClass(body: string[]): string {
  let negate = false;
  let start = 0;
  if (body[0] === '^') {
    negate = true;
    start = 1;
  }
  let out = '';
  for (let j = start; j < body.length; j++) {
    const char = body[j] ?? '';
    if (char === '\\' && j + 1 < body.length) {
      out += escapeInClass(body[++j] ?? '');
    } else if (body[j + 1] === '-' && j + 2 < body.length) {
      const [low, high] = [char, body[j + 2] ?? ''].sort();
      out += `${escapeInClass(low ?? '')}-${escapeInClass(high ?? '')}`;
      j += 2;
    } else {
      out += escapeInClass(char);
    }
  }
  if (out === '') return negate ? '[\\s\\S]' : '(?!)';
  return `[${negate ? '^' : ''}${out}]`;
}

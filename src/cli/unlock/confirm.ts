import { createInterface } from 'node:readline';
import type { CliIo } from '../CliIo.js';

/**
 * Asks a yes/no question on stderr and reads one line from stdin (a terminal or a pipe). Only `y` or `yes`
 * agree; anything else, or stdin ending first, declines.
 */
export function confirm(io: CliIo, question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const reader = createInterface({ input: io.stdin, output: io.stderr, terminal: io.stdin.isTTY });
    let answered = false;
    reader.once('close', () => {
      if (!answered) io.stderr.write('\n');
      resolve(false);
    });
    reader.question(question, (answer) => {
      answered = true;
      // Closing emits 'close' at once, which would decline: settle first.
      resolve(/^\s*y(es)?\s*$/i.test(answer));
      reader.close();
    });
  });
}

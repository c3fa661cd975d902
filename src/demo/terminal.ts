/** The environment variables the demo's output depends on. */
export type OutputEnv = Readonly<Record<string, string | undefined>>;

/** Whether `out` is a terminal that can redraw in place: not a pipe, not a CI log (CI set), not TERM=dumb. */
export function isLiveTerminal(out: NodeJS.WritableStream, env: OutputEnv = process.env): boolean {
  const ci = env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== '0' && env['CI'] !== 'false';
  return (out as Partial<NodeJS.WriteStream>).isTTY === true && !ci && env['TERM'] !== 'dumb';
}

/** Colour on a terminal (or whenever the board is live) unless NO_COLOR is set; FORCE_COLOR forces it. */
export function wantsColor(out: NodeJS.WritableStream, live: boolean, env: OutputEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined) return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  return live || (out as Partial<NodeJS.WriteStream>).isTTY === true;
}

import picocolors from 'picocolors';

/** The colour functions the renderers use; all identity functions when colour is off. */
export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Colour when writing to a terminal, unless NO_COLOR is set or `--no-color` was given; FORCE_COLOR forces it.
 * (picocolors' own detection also colours in CI logs, which is wrong for `--json` consumers and tests.)
 */
export function chooseColors(stream: NodeJS.WriteStream, colorFlag: boolean): Colors {
  const env = process.env;
  const forced = env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0';
  const enabled = colorFlag && env['NO_COLOR'] === undefined && (forced || stream.isTTY);
  return picocolors.createColors(enabled);
}

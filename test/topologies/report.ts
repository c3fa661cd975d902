/**
 * Prints a measured outcome of a topology test in one greppable line (`[topologies] <topology> | <case> | {...}`),
 * the source of the figures in the README's topology section.
 */
export function report(topology: string, scenario: string, figures: Record<string, unknown>): void {
  console.log(`[topologies] ${topology} | ${scenario} | ${JSON.stringify(figures)}`);
}

/** Jain's fairness index of per-worker counts: 1 when all are equal, 1/n when one worker got everything. */
export function jainIndex(counts: readonly number[]): number | undefined {
  const sum = counts.reduce((a, b) => a + b, 0);
  const squares = counts.reduce((a, b) => a + b * b, 0);
  if (counts.length === 0 || squares === 0) return undefined;
  return (sum * sum) / (counts.length * squares);
}

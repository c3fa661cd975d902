import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** A latency histogram in microseconds, 3 significant digits (HdrHistogram). */
export function latencyHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

/** Records a duration given in milliseconds. */
export function recordMs(histogram: Histogram, ms: number): void {
  histogram.recordValue(Math.max(1, Math.round(ms * 1_000)));
}

/** The middle value of `values` (the upper one of an even count), NaN for none; `values` is left as it is. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
}

/** Percentiles of a histogram, in milliseconds; undefined when it is empty. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export function summarize(histogram: Histogram): LatencySummary | undefined {
  if (histogram.totalCount === 0) return undefined;
  return {
    count: histogram.totalCount,
    p50Ms: histogram.getValueAtPercentile(50) / 1_000,
    p99Ms: histogram.getValueAtPercentile(99) / 1_000,
    maxMs: histogram.maxValue / 1_000,
  };
}

/** Sums histograms into a new one. */
export function merged(histograms: readonly Histogram[]): Histogram {
  const sum = latencyHistogram();
  for (const histogram of histograms) sum.add(histogram);
  return sum;
}

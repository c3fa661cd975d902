import type { LatencySummary } from './histogram.js';
import type { BenchOptions } from './options.js';
import type { ContenderFigures } from './scenarios/aggregate.js';
import type { EnduranceFigures } from './scenarios/endurance.js';
import type { ManyHeldFigures } from './scenarios/manyHeld.js';
import type { LockScenario } from './scenarios/lockScenarios.js';

/** Where and when a run happened. */
export interface RunInfo {
  readonly date: string;
  readonly node: string;
  readonly server: string;
  readonly cpu: string;
  /** 1-minute load average when the run started and ended (other processes share the machine). */
  readonly loadStart: number;
  readonly loadEnd: number;
  readonly durationSeconds: number;
  readonly options: BenchOptions;
  /** False without --expose-gc: heap figures are then missing. */
  readonly gcExposed: boolean;
}

export interface LockScenarioResult {
  readonly scenario: LockScenario;
  readonly figures: ContenderFigures[];
}

export interface TargetCheck {
  readonly target: string;
  readonly contender: string;
  readonly measured: string;
  /** Undefined when it could not be measured in this run. */
  readonly met: boolean | undefined;
}

export interface BenchResults {
  readonly info: RunInfo;
  /** PINGs back to back. */
  readonly ping: LatencySummary | undefined;
  /** PINGs each sent after a 1 ms pause (see `PingHistograms`). */
  readonly pingAfterPause: LatencySummary | undefined;
  /** A publish-only script after the same pause, to its message at a subscriber (see `PingHistograms`). */
  readonly publishAfterPause: LatencySummary | undefined;
  /** The 1 ms pauses of those PINGs as timed: how late a timer fires while idle (see `PingHistograms`). */
  readonly idleTimer: LatencySummary | undefined;
  readonly lockScenarios: LockScenarioResult[];
  readonly manyHeld: ManyHeldFigures[];
  readonly endurance: EnduranceFigures[];
  readonly targets: TargetCheck[];
}

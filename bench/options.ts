/** Which parts of the bench to run. */
export type ScenarioId = 'uncontended' | 'contended' | 'heavy' | 'held' | 'endurance';

export const SCENARIO_IDS: readonly ScenarioId[] = ['uncontended', 'contended', 'heavy', 'held', 'endurance'];

/** Settings of one bench run. */
export interface BenchOptions {
  /** Length of one contender's window in the uncontended and contended scenarios. @default 3000 */
  readonly windowMs: number;
  /** Rounds of windows; each round runs every contender once, in a rotated order. @default 3 */
  readonly rounds: number;
  /** @default every scenario */
  readonly scenarios: readonly ScenarioId[];
  /** Contender ids to run. @default all */
  readonly contenders: readonly string[] | undefined;
  /** Locks one client holds in the many-held scenario. @default 10000 */
  readonly heldLocks: number;
  /** watchdogTimeoutMs of that client: renewal ticks come every third of it. @default 3000 */
  readonly heldWatchdogMs: number;
  /** Renewal ticks observed. @default 4 */
  readonly heldTicks: number;
  /** Measured acquire/release cycles of the endurance scenario. @default 1000000 */
  readonly enduranceCycles: number;
  /** How long workers may take to finish their last cycle after a window closed. @default 30000 */
  readonly drainMs: number;
  /** Sequential PINGs measured before each round. @default 1000 */
  readonly pingsPerRound: number;
  /** Use this server instead of starting one. @default process.env.REDIS_URL */
  readonly redisUrl: string | undefined;
}

export const DEFAULT_OPTIONS: BenchOptions = {
  windowMs: 3_000,
  rounds: 3,
  scenarios: SCENARIO_IDS,
  contenders: undefined,
  heldLocks: 10_000,
  heldWatchdogMs: 3_000,
  heldTicks: 4,
  enduranceCycles: 1_000_000,
  drainMs: 30_000,
  pingsPerRound: 1_000,
  redisUrl: undefined,
};

/** A run of a few seconds that exercises every code path (the test suite's smoke test). Its figures mean nothing. */
export const SMOKE_OPTIONS: BenchOptions = {
  ...DEFAULT_OPTIONS,
  windowMs: 150,
  rounds: 1,
  heldLocks: 200,
  heldWatchdogMs: 600,
  heldTicks: 2,
  enduranceCycles: 1_500,
  drainMs: 15_000,
  pingsPerRound: 100,
};

/** A scenario of timed windows in which workers loop acquire → hold → release. */
export interface LockScenario {
  readonly id: 'uncontended' | 'contended' | 'heavy';
  readonly title: string;
  readonly workers: number;
  readonly holdMs: number;
  /** All workers on one key; otherwise each on its own. */
  readonly sharedKey: boolean;
}

export const UNCONTENDED: LockScenario = {
  id: 'uncontended',
  title: 'Uncontended: 16 workers, each on its own key, acquire → release',
  workers: 16,
  holdMs: 0,
  sharedKey: false,
};

export const CONTENDED: LockScenario = {
  id: 'contended',
  title: 'Contended: 8 workers on one key, hold 1 ms',
  workers: 8,
  holdMs: 1,
  sharedKey: true,
};

export const HEAVY: LockScenario = {
  id: 'heavy',
  title: 'Contended-heavy: 32 workers on one key, hold 0 ms',
  workers: 32,
  holdMs: 0,
  sharedKey: true,
};

export const LOCK_SCENARIOS: readonly LockScenario[] = [UNCONTENDED, CONTENDED, HEAVY];

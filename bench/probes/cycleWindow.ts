/** One worker of a cycle probe: an acquire/release cycle on its own key and connection. */
export interface CycleLoop {
  cycle(): Promise<void>;
  close(): Promise<void>;
}

/** What a window of cycles took: how many ran, in how long, and the process's CPU (user + system) meanwhile. */
export interface CycleWindow {
  readonly cycles: number;
  readonly elapsedMs: number;
  readonly cpuUs: number;
}

/** Runs every loop's cycles back to back until `windowMs` have passed, all at once (the uncontended scenario's shape). */
export async function runCycleWindow(loops: readonly CycleLoop[], windowMs: number): Promise<CycleWindow> {
  let windowOpen = true;
  let cycles = 0;
  const timer = setTimeout(() => (windowOpen = false), windowMs);
  const startedAt = performance.now();
  const before = process.cpuUsage();
  await Promise.all(
    loops.map(async (loop) => {
      while (windowOpen) {
        await loop.cycle();
        cycles++;
      }
    }),
  );
  const used = process.cpuUsage(before);
  const elapsedMs = performance.now() - startedAt;
  clearTimeout(timer);
  return { cycles, elapsedMs, cpuUs: used.user + used.system };
}

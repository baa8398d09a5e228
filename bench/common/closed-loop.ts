/**
 * Closed-loop load run in the bench process itself (the "raw" baselines): `workers` loops, each
 * running its operation again as soon as the last one ended, for a warm-up that is not recorded
 * and then for the measured time.
 */
import type { LoadResult } from "../catalog/load.js";

/** The value at percentile `p` (0-100) of ascending `sorted`; 0 when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Milliseconds to two decimals. */
export const roundMs = (ms: number) => Math.round(ms * 100) / 100;

export interface ClosedLoopOptions<M> {
  workers: number;
  warmupSeconds: number;
  seconds: number;
  /** One operation of worker `worker` (0 to workers - 1). */
  once(worker: number): Promise<void>;
  /** Started when the measured part starts, read with its operation count when it ends. */
  meter?: () => (operations: number) => M;
}

/**
 * Runs the loops and answers the measured part's rate and latencies. A failed operation is
 * counted and the loop goes on; past 100 failures the run ends with the last one, and a run in
 * which nothing completed ends with the first.
 */
export async function closedLoop<M = undefined>(
  options: ClosedLoopOptions<M>,
): Promise<LoadResult & { p90Ms: number; cpu: M | undefined }> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const run = async (until: number, record: boolean) => {
    await Promise.all(
      Array.from({ length: options.workers }, async (_, worker) => {
        while (performance.now() < until) {
          const start = performance.now();
          try {
            await options.once(worker);
            if (record) latencies.push(performance.now() - start);
          } catch (error) {
            errors++;
            firstError ??= error;
            if (errors > 100) throw error;
          }
        }
      }),
    );
  };
  await run(performance.now() + options.warmupSeconds * 1000, false);
  const read = options.meter?.();
  const started = performance.now();
  await run(started + options.seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = read?.(latencies.length);
  if (latencies.length === 0) throw firstError ?? new Error("no operation completed");
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: roundMs(percentile(latencies, 50)),
    p90Ms: roundMs(percentile(latencies, 90)),
    p99Ms: roundMs(percentile(latencies, 99)),
    requests: latencies.length,
    non2xx: 0,
    errors,
    cpu,
  };
}

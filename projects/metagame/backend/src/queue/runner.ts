/**
 * The worker of one backend instance: one loop claims up to `concurrency` jobs at a time (pg-boss's
 * fetch, `FOR UPDATE SKIP LOCKED`, so instances sharing the database never run a job twice) and
 * runs them side by side. One loop rather than pg-boss's `work()` (a polling loop per worker) keeps
 * an idle instance at one cheap query per poll, lets a local enqueue or a finished job wake it at
 * once, and lets close() wait for exactly what it started.
 */
import type { Logger } from "@platform/core";
import type PgBoss from "pg-boss";

export interface RunnerOptions {
  boss: PgBoss;
  queue: string;
  concurrency: number;
  /** How long an idle loop waits before looking for jobs queued by other instances. */
  pollMs: number;
  logger: Logger;
  /** How long one job may run before it is aborted (and so failed, and retried). */
  timeoutMs: number;
  /** Runs one job; a throw fails it (pg-boss retries it later); `signal` aborts when the runner stops or the job times out. */
  run(data: unknown, signal: AbortSignal): Promise<void>;
}

export interface Runner {
  /** Looks for jobs now (after this instance queued one). */
  wake(): void;
  /** Stops claiming jobs, aborts the running ones (failed, so any instance retries them) and waits for them. */
  stop(): Promise<void>;
}

export function startRunner(options: RunnerOptions): Runner {
  const { boss, queue, logger } = options;
  const running = new Set<Promise<void>>();
  const abort = new AbortController();
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.pollMs);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const execute = async (job: PgBoss.Job<unknown>) => {
    try {
      await options.run(job.data, AbortSignal.any([abort.signal, AbortSignal.timeout(options.timeoutMs)]));
      await boss.complete(queue, job.id);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ err: error, jobId: job.id, data: job.data }, "profile refresh failed; it will be retried");
      await boss.fail(queue, job.id, { message }).catch((failure: unknown) => {
        // The job stays active; pg-boss's maintenance expires it into a retry.
        logger.error({ err: failure, jobId: job.id }, "could not record a failed profile refresh");
      });
    }
  };

  const loop = async () => {
    while (!stopping) {
      woken = false;
      const free = options.concurrency - running.size;
      let claimed = 0;
      if (free > 0) {
        // pg-boss's fetch answers [] on a database error (and logs nothing): the next poll tries again.
        const jobs = await boss.fetch<unknown>(queue, { batchSize: free });
        claimed = jobs.length;
        for (const job of jobs) {
          const task = execute(job).finally(() => {
            running.delete(task);
            wake();
          });
          running.add(task);
        }
      }
      // A full batch may mean more are waiting; otherwise wait for a poll, a local enqueue or a free slot.
      if (stopping || (claimed > 0 && claimed === free)) continue;
      if (!woken) await sleep();
    }
  };

  const looping = loop().catch((error: unknown) => logger.error({ err: error }, "the profile queue's worker stopped"));

  return {
    wake,
    async stop() {
      stopping = true;
      abort.abort(new Error("the backend is shutting down"));
      wakeUp?.();
      await looping;
      await Promise.allSettled([...running]);
    },
  };
}

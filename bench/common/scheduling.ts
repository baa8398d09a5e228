/**
 * How much CPU a thread got and how long it waited for one, and how busy the machine was, from
 * Linux's /proc (schedstat: https://docs.kernel.org/scheduler/sched-stats.html; /proc/stat:
 * https://docs.kernel.org/filesystems/proc.html). Elsewhere every reading is null. On a machine
 * whose cores the service shares with PostgreSQL and the load generator, the time its event loop
 * thread waits to be scheduled is part of every latency it answers with.
 */
import { readFileSync } from "node:fs";
import { machineTicks } from "./cpu.js";

export interface ThreadTime {
  /** Milliseconds per second of wall time the thread ran on a CPU. */
  ranMsPerSecond: number;
  /** Milliseconds per second it was ready to run and waited for a CPU. */
  waitedMsPerSecond: number;
}

function schedstat(pid: number, tid: number): { run: number; wait: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").trim().split(" ").map(Number);
    return run === undefined || wait === undefined ? null : { run, wait };
  } catch {
    return null;
  }
}

/** Starts measuring thread `tid` of process `pid` (the main thread's tid is the pid); the returned function reads it. */
export function threadMeter(pid: number, tid = pid): () => ThreadTime | null {
  const before = schedstat(pid, tid);
  const started = performance.now();
  return () => {
    const after = schedstat(pid, tid);
    if (!before || !after) return null;
    const seconds = (performance.now() - started) / 1000;
    return { ranMsPerSecond: (after.run - before.run) / 1e6 / seconds, waitedMsPerSecond: (after.wait - before.wait) / 1e6 / seconds };
  };
}

/** Starts measuring the machine; the returned function answers the busy share of all its CPUs (0-100), or null. */
export function machineBusyMeter(): () => number | null {
  const before = machineTicks();
  return () => {
    const after = machineTicks();
    if (!before || !after || after.all === before.all) return null;
    return (100 * (after.busy - before.busy)) / (after.all - before.all);
  };
}

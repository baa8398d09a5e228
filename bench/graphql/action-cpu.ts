/**
 * The whole machine's CPU from /proc/stat, with the kernel's softirq time apart: on loopback,
 * TCP delivery runs there, charged to no process, so it is where each HTTP hop's kernel cost
 * shows. Linux only; elsewhere null. Complements cpu.ts, which splits the time by process.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface MachineCpu {
  busyMs: number;
  softirqMs: number;
}

function machineCpu(): MachineCpu | null {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq | steal guest guest_nice (guest is already in user)
    const busy = fields.reduce((sum, v, i) => (i === 3 || i === 4 || i >= 7 ? sum : sum + v), 0);
    const toMs = (ticks: number) => (ticks * 1000) / clockTicks();
    return { busyMs: toMs(busy), softirqMs: toMs(fields[6] ?? 0) };
  } catch {
    return null;
  }
}

/** Starts counting now; `perRequest(n)` is the machine's busy and softirq time since, per request, in ms. */
export function startMachineMeter(): { perRequest(requests: number): MachineCpu | null } {
  const before = machineCpu();
  return {
    perRequest(requests) {
      const after = machineCpu();
      if (!before || !after) return null;
      const n = Math.max(1, requests);
      const round = (ms: number) => Math.round((ms / n) * 1000) / 1000;
      return { busyMs: round(after.busyMs - before.busyMs), softirqMs: round(after.softirqMs - before.softirqMs) };
    },
  };
}

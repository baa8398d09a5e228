/**
 * CPU time spent during a round by the server under test, by PostgreSQL (all its processes), by
 * this process (autocannon) and by the whole machine, in ms from /proc (Linux; elsewhere null).
 * Kept raw so rounds add up; divided by the requests at the end.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface CpuSpent {
  server: number;
  postgres: number;
  bench: number;
  /** Kernel softirq time (loopback TCP delivery runs there, charged to no process). */
  softirq: number;
  machine: number;
}

let ticksPerSecond: number | undefined;
function toMs(ticks: number): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return (ticks * 1000) / ticksPerSecond;
}

/** utime + stime and command name of a process; null when it cannot be read. */
function processCpu(pid: string | number): { comm: string; ms: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    // Fields after "(comm)": state is [0], utime [11], stime [12].
    const fields = stat.slice(close + 2).split(" ");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), ms: toMs(Number(fields[11]) + Number(fields[12])) };
  } catch {
    return null;
  }
}

/** Backends come and go with connections; the ones alive at both ends of a round carry its load. */
function postgresMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cpu = processCpu(pid);
    if (cpu?.comm === "postgres") out.set(pid, cpu.ms);
  }
  return out;
}

function machineMs(): { busy: number; softirq: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal ...: busy = all but idle, iowait and the guest/steal tail.
  return { busy: toMs(fields.reduce((sum, v, i) => (i === 3 || i === 4 || i >= 7 ? sum : sum + v), 0)), softirq: toMs(fields[6] ?? 0) };
}

export function startCpu(serverPid: number): { stop(): CpuSpent | null } {
  try {
    const server = processCpu(serverPid)?.ms ?? 0;
    const postgres = postgresMs();
    const bench = process.cpuUsage();
    const machine = machineMs();
    return {
      stop() {
        let pgSpent = 0;
        for (const [pid, ms] of postgresMs()) pgSpent += ms - (postgres.get(pid) ?? 0);
        const used = process.cpuUsage(bench);
        const now = machineMs();
        return {
          server: (processCpu(serverPid)?.ms ?? server) - server,
          postgres: pgSpent,
          bench: (used.user + used.system) / 1000,
          softirq: now.softirq - machine.softirq,
          machine: now.busy - machine.busy,
        };
      },
    };
  } catch {
    return { stop: () => null };
  }
}

export function addCpu(a: CpuSpent | null, b: CpuSpent | null): CpuSpent | null {
  if (!a || !b) return a ?? b;
  return {
    server: a.server + b.server,
    postgres: a.postgres + b.postgres,
    bench: a.bench + b.bench,
    softirq: a.softirq + b.softirq,
    machine: a.machine + b.machine,
  };
}

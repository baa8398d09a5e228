/**
 * CPU time per request, split between the server under test, this process (the load
 * generator, or the pg client loop) and PostgreSQL's processes. On a machine with few cores
 * all three share them, so this says where each request's CPU goes better than wall time does.
 * Linux only (/proc); elsewhere the split is null.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface CpuPerRequest {
  serverMs: number | null;
  loadGeneratorMs: number;
  postgresMs: number | null;
  /** Cores kept busy by everything else on the machine meanwhile: above ~0.2 the figures are disturbed. */
  otherCores: number | null;
}

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

/** utime + stime of one process in ms, with its command name; null when unreadable. */
export function processCpu(pid: string | number): { comm: string; ms: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    // Fields after "(comm)": state is [0], utime [11], stime [12].
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { comm: stat.slice(stat.indexOf("(") + 1, close), ms: (ticks * 1000) / clockTicks() };
  } catch {
    return null;
  }
}

export function postgresCpuMs(): number | null {
  try {
    let total = 0;
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const cpu = processCpu(pid);
      if (cpu?.comm === "postgres") total += cpu.ms;
    }
    return total;
  } catch {
    return null;
  }
}

/** The machine's CPU time in clock ticks, all cores: busy (idle, iowait, steal and guest excluded) and in all. */
export function machineTicks(): { busy: number; all: number } | null {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq | steal guest guest_nice (guest is already in user)
    const busy = fields.reduce((sum, v, i) => (i === 3 || i === 4 || i >= 7 ? sum : sum + v), 0);
    return { busy, all: fields.slice(0, 8).reduce((sum, v) => sum + v, 0) };
  } catch {
    return null;
  }
}

/** CPU time of the whole machine in ms (all cores, idle and iowait excluded). */
function machineBusyMs(): number | null {
  const ticks = machineTicks();
  return ticks === null ? null : (ticks.busy * 1000) / clockTicks();
}

/** Starts counting now; `perRequest(n)` divides what was spent since by `n` requests. */
export function startCpuMeter(serverPid: number | null): { perRequest(requests: number): CpuPerRequest } {
  const server = serverPid === null ? null : processCpu(serverPid);
  const self = process.cpuUsage();
  const postgres = postgresCpuMs();
  const machine = machineBusyMs();
  const started = performance.now();
  return {
    perRequest(requests) {
      const n = Math.max(1, requests);
      const round = (ms: number) => Math.round((ms / n) * 100) / 100;
      const serverNow = serverPid === null ? null : processCpu(serverPid);
      const selfUsed = process.cpuUsage(self);
      const postgresNow = postgresCpuMs();
      const machineNow = machineBusyMs();
      const serverUsed = server && serverNow ? serverNow.ms - server.ms : null;
      const selfMs = (selfUsed.user + selfUsed.system) / 1000;
      const postgresUsed = postgres !== null && postgresNow !== null ? postgresNow - postgres : null;
      const other =
        machine !== null && machineNow !== null && postgresUsed !== null
          ? Math.max(0, machineNow - machine - (serverUsed ?? 0) - selfMs - postgresUsed) / (performance.now() - started)
          : null;
      return {
        serverMs: serverUsed === null ? null : round(serverUsed),
        loadGeneratorMs: round(selfMs),
        postgresMs: postgresUsed === null ? null : round(postgresUsed),
        otherCores: other === null ? null : Math.round(other * 100) / 100,
      };
    },
  };
}

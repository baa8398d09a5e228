/**
 * CPU time of the action bench's processes and of the whole machine, from /proc (Linux only;
 * elsewhere the figures are null). Unlike cpu.ts it keeps raw milliseconds, so the time of
 * several measured rounds adds up, and it sets the kernel's softirq time apart: on loopback, TCP
 * delivery may run there, charged to no process.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;
function toMs(ticks: number): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return (ticks * 1000) / ticksPerSecond;
}

/** utime + stime of a process in ms; null when unreadable. */
function processMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)": state is [0], utime [11], stime [12].
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return toMs(Number(fields[11]) + Number(fields[12]));
  } catch {
    return null;
  }
}

/** The machine's busy time (all cores, idle and iowait excluded) and its softirq part, in ms. */
function machineMs(): { busy: number; softirq: number } | null {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq | steal guest guest_nice (guest is already in user)
    const busy = fields.reduce((sum, v, i) => (i === 3 || i === 4 || i >= 7 ? sum : sum + v), 0);
    return { busy: toMs(busy), softirq: toMs(fields[6] ?? 0) };
  } catch {
    return null;
  }
}

export interface CpuSpent {
  service: number;
  handler: number;
  /** This process: autocannon. */
  bench: number;
  softirq: number;
  machine: number;
}

/** Starts counting; `stop()` is the CPU spent since, in ms (null where /proc cannot be read). */
export function startCpu(servicePid: number, handlerPid: number): { stop(): CpuSpent | null } {
  const service = processMs(servicePid);
  const handler = processMs(handlerPid);
  const bench = process.cpuUsage();
  const machine = machineMs();
  return {
    stop() {
      const [serviceNow, handlerNow, machineNow] = [processMs(servicePid), processMs(handlerPid), machineMs()];
      if (service === null || handler === null || machine === null || serviceNow === null || handlerNow === null || !machineNow)
        return null;
      const used = process.cpuUsage(bench);
      return {
        service: serviceNow - service,
        handler: handlerNow - handler,
        bench: (used.user + used.system) / 1000,
        softirq: machineNow.softirq - machine.softirq,
        machine: machineNow.busy - machine.busy,
      };
    },
  };
}

/** The sum of several rounds' figures (null when any is null). */
export function addCpu(a: CpuSpent | null, b: CpuSpent | null): CpuSpent | null {
  if (!a || !b) return null;
  return {
    service: a.service + b.service,
    handler: a.handler + b.handler,
    bench: a.bench + b.bench,
    softirq: a.softirq + b.softirq,
    machine: a.machine + b.machine,
  };
}

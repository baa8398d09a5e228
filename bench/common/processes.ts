/**
 * Servers under test as real separate processes: started, polled until they answer, measured
 * by their resident memory, and always stopped, also when the bench itself dies.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const OUTPUT_LINES = 40;

export { freePort } from "@platform/core";

export interface Server {
  name: string;
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  /** Resolves true once the server answers as it should. */
  ready: (url: string) => Promise<boolean>;
  readyTimeoutMs?: number;
}

export async function startServer(options: StartOptions): Promise<Server> {
  const url = `http://127.0.0.1:${options.port}`;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - OUTPUT_LINES));
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const killOnExit = () => child.kill("SIGKILL");
  process.on("exit", killOnExit);
  const server: Server = {
    name: options.name,
    url,
    pid: child.pid ?? -1,
    output: () => lines.join("\n"),
    stop: async () => {
      process.off("exit", killOnExit);
      await stopChild(child);
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await options.ready(url).catch(() => false)) return server;
    await sleep(250);
  }
  await server.stop();
  throw new Error(`${options.name} did not come up (exit ${child.exitCode ?? child.signalCode ?? "none"})\n${server.output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  if (!(await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]))) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Resident set size of a process in MiB: /proc on Linux, `ps` elsewhere. */
export function residentMemoryMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (match?.[1]) return Number(match[1]) / 1024;
  } catch {
    // Not Linux, or the process is gone.
  }
  try {
    const kb = Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
    return Number.isFinite(kb) && kb > 0 ? kb / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's memory every `everyMs` and keeps the peak. */
export class MemorySampler {
  max = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pid: number) {}

  sample(): number | null {
    const mb = residentMemoryMb(this.pid);
    if (mb !== null && mb > this.max) this.max = mb;
    return mb;
  }

  start(everyMs = 250): void {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * The catalog service as a real separate process, the way it is deployed: started from the
 * repository root, polled until /healthz answers, measured by its resident memory, always stopped.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface RunningService {
  url: string;
  pid: number;
  /** The last lines the service printed, for error reports. */
  output(): string;
  stop(): Promise<void>;
}

const OUTPUT_LINES = 40;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export async function startService(options: { root: string; databasePath: string; readyTimeoutMs: number }): Promise<RunningService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "services/catalog/src/main.ts"], {
    cwd: options.root,
    env: {
      ...process.env,
      ENDPOINT_CATALOG_DB: `sqlite:///${options.databasePath}`,
      CATALOG_HOST: "127.0.0.1",
      CATALOG_PORT: String(port),
      LOG_LEVEL: "warn",
    },
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

  const service: RunningService = {
    url,
    pid: child.pid ?? -1,
    output: () => lines.join("\n"),
    stop: async () => {
      process.off("exit", killOnExit);
      await stopChild(child);
    },
  };
  try {
    await waitHealthy(url, child, options.readyTimeoutMs);
  } catch (error) {
    await service.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- service output ---\n${service.output()}`);
  }
  return service;
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the catalog service exited during start-up (code ${child.exitCode ?? child.signalCode})`);
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  throw new Error(`the catalog service did not answer /healthz with 200 within ${timeoutMs / 1000} s`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const graceful = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (!graceful) {
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

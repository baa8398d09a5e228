/**
 * The real `npm start` in a child process, on free ports and a data directory of the test's own,
 * with JSON logs: the test waits for the "platform ready" line and reads the printed summary.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { freePort } from "@platform/core";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");

export interface Ready {
  seconds: number;
  urls: Record<string, string>;
  keys: Record<string, string>;
  notes: string[];
}

export interface Platform {
  ready: Ready;
  /** Every stdout line, parsed where it was JSON. */
  lines: Array<Record<string, unknown>>;
  gateway: string;
  /** Sends SIGTERM to the process group (npm, tsx and node), as a terminal's Ctrl-C reaches all of them; resolves when npm has exited. */
  stop(): Promise<Exit>;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the platform logged its clean shutdown ("stopped") before exiting. */
  stoppedCleanly: boolean;
}

export interface Ports {
  gateway: number;
  auth: number;
  graphql: number;
  catalog: number;
  metagame: number;
}

/** Five free ports, all different (each is released before the next is asked for, so the system may hand one out twice). */
export async function freePorts(): Promise<Ports> {
  const taken = new Set<number>();
  const next = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return { gateway: await next(), auth: await next(), graphql: await next(), catalog: await next(), metagame: await next() };
}

export function portEnv(ports: Ports): Record<string, string> {
  return {
    GATEWAY_PORT: String(ports.gateway),
    AUTH_API_PORT: String(ports.auth),
    HASURA_GRAPHQL_SERVER_PORT: String(ports.graphql),
    CATALOG_PORT: String(ports.catalog),
    METAGAME_BACKEND_PORT: String(ports.metagame),
  };
}

/** Names of the user's own environment that would change what npm start does; the test starts from none of them. */
const INHERITED =
  /^(AUTH_|GOTRUE_|HASURA_GRAPHQL_|GATEWAY_|CATALOG_|ENDPOINT_CATALOG_DB$|DATABASE_URL$|PORT$|LOG_|PLATFORM_|ANON_KEY$|SERVICE_ROLE_KEY$|SUPABASE_|METAGAME_|APP_ENV$|PSEED_|BRIGHTID_|NEXT_BRIGHTID_|PROFILE_SOURCE_URL$|DAOHAUS_|DISCORD_|SOURCECRED_|FRONTEND_URL$)/;

/** This process's environment without anything that would configure the platform. */
export function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !INHERITED.test(entry[0])),
  );
}

export async function startPlatform(env: Record<string, string>, timeoutMs = 120_000): Promise<Platform> {
  const base = cleanEnv();
  const child: ChildProcess = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...base, LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // "close", not "exit": npm may exit before the platform's node process, which shares its stdout;
  // the streams close once every process writing to them is gone and every line has been read.
  const exited = new Promise<Exit>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, stoppedCleanly: lines.some((line) => line.msg === "stopped") })),
  );
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start was not ready in ${timeoutMs} ms\n${stderr}`)), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}\n${stderr}\n${lines.map((l) => JSON.stringify(l)).join("\n")}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        record = { text: line };
      }
      lines.push(record);
      if (record.msg === "platform ready") {
        clearTimeout(timer);
        resolve(record as unknown as Ready);
      }
    });
  });
  return {
    ready,
    lines,
    gateway: ready.urls.gateway as string,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
      return exited;
    },
  };
}

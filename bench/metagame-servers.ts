/**
 * The two servers of the profile-page bench, each its own process: our engine serving the
 * MetaGame project (its migrations and metadata, as deployed), and the direct baseline
 * (metagame-direct.ts). Both get a pg pool of the same size.
 */
import { metagameEngineEnv } from "@platform/metagame";
import { freePort, type Server, startServer } from "./common/processes.js";

export const ADMIN_SECRET = "bench-metagame-admin-secret";

export async function startEngine(root: string, databaseUrl: string, poolSize: number, cpuProfileDir?: string): Promise<Server> {
  const port = await freePort();
  const profile = cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : [];
  return startServer({
    name: "engine",
    command: process.execPath,
    args: [...profile, "--import", "tsx", "services/graphql/src/main.ts"],
    cwd: root,
    env: {
      HASURA_GRAPHQL_DATABASE_URL: databaseUrl,
      HASURA_GRAPHQL_SERVER_PORT: String(port),
      HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
      HASURA_GRAPHQL_LOG_LEVEL: "error",
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      HASURA_GRAPHQL_PG_CONNECTIONS: String(poolSize),
      HASURA_GRAPHQL_ENABLE_CONSOLE: "false",
      // The project's migrations, metadata and settings. No backend runs: the profile query reads
      // only tables, and the engine reports the unreachable remote schema and serves the rest.
      ...metagameEngineEnv("http://127.0.0.1:9", { webhook: false }),
      NODE_ENV: "production",
    },
    port,
    ready: async (url) => (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).status === 200,
  });
}

export async function startDirect(root: string, databaseUrl: string, poolSize: number): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: "direct",
    command: process.execPath,
    args: ["--import", "tsx", "bench/metagame-direct.ts", String(port), databaseUrl, String(poolSize)],
    cwd: root,
    env: { NODE_ENV: "production" },
    port,
    ready: async (url) => (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).status === 200,
  });
}

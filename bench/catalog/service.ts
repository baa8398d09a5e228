/**
 * The catalog service as a real separate process, the way it is deployed: started from the
 * repository root, polled until /healthz answers, measured by its resident memory, always stopped.
 */
import { freePort, type Server, startServer } from "../common/processes.js";

export { MemorySampler, residentMemoryMb } from "../common/processes.js";
export type RunningService = Server;

export async function startService(options: { root: string; databasePath: string; readyTimeoutMs: number }): Promise<RunningService> {
  const port = await freePort();
  return startServer({
    name: "the catalog service",
    command: process.execPath,
    args: ["--import", "tsx", "services/catalog/src/main.ts"],
    cwd: options.root,
    env: {
      ENDPOINT_CATALOG_DB: `sqlite:///${options.databasePath}`,
      CATALOG_HOST: "127.0.0.1",
      CATALOG_PORT: String(port),
      LOG_LEVEL: "warn",
    },
    port,
    readyTimeoutMs: options.readyTimeoutMs,
    ready: async (url) => {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.status === 200;
    },
  });
}

/**
 * The project as the tests run it: one scratch database (PGlite, or a fresh PostgreSQL database
 * when TEST_DATABASE_URL is set), the backend and the engine serving the project over it, both on
 * real ports, wired as `npm start` wires them. Requests go through real HTTP.
 */
import { createLogger, freePort, openScratchDatabase, type ScratchDatabase } from "@platform/core";
import { readGraphqlConfig, startGraphql } from "@platform/graphql";
import { readBackendConfig } from "../../backend/src/config.js";
import { metagameEngineEnv } from "../../backend/src/project.js";
import { type RunningBackend, startBackend } from "../../backend/src/server.js";

export const ADMIN_SECRET = "metagame-test-admin-secret";
/** What the engine's cron deliveries carry and the backend's cron targets check. */
export const CRON_SECRET = "metagame-test-cron-secret";

export interface GraphqlAnswer<T = Record<string, unknown>> {
  status: number;
  data?: T;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

export interface TestPlatform {
  scratch: ScratchDatabase;
  backend: RunningBackend;
  engineUrl: string;
  /** POST /v1/graphql with the given headers (none: as the webhook's `public`). */
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphqlAnswer<T>>;
  /** As the admin. */
  admin<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer<T>>;
  /** As role `player` with this player id (admin secret + x-hasura-role, as Hasura lets the admin act as a role). */
  asPlayer<T = Record<string, unknown>>(playerId: string, query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer<T>>;
  metadata(type: string, args?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  backendEnv?: Record<string, string>;
  engineEnv?: Record<string, string>;
  /** Authenticate through the backend's webhook (default true). */
  webhook?: boolean;
  logLevel?: string;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<TestPlatform> {
  const scratch = await openScratchDatabase(process.env.TEST_DATABASE_URL, "metagame");
  const logger = createLogger({ level: options.logLevel ?? "silent" });
  const enginePort = await freePort();
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const backend = await startBackend(
    readBackendConfig({
      METAGAME_BACKEND_HOST: "127.0.0.1",
      METAGAME_BACKEND_PORT: "0",
      METAGAME_GRAPHQL_URL: `${engineUrl}/v1/graphql`,
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      METAGAME_CRON_SECRET: CRON_SECRET,
      ...options.backendEnv,
    }),
    logger.child({ service: "metagame-backend" }),
    { db: scratch.db },
  );
  await backend.ready();
  let engine: { url: string; close(): Promise<void> };
  try {
    const config = readGraphqlConfig({
      HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
      HASURA_GRAPHQL_SERVER_PORT: String(enginePort),
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      HASURA_GRAPHQL_ENABLE_CONSOLE: "false",
      HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
      METAGAME_CRON_SECRET: CRON_SECRET,
      ...metagameEngineEnv(backend.url, { webhook: options.webhook !== false }),
      ...options.engineEnv,
    });
    engine = await startGraphql(config, logger.child({ service: "graphql" }), { db: scratch.db });
  } catch (error) {
    await backend.close();
    await scratch.dispose();
    throw error;
  }
  const post = async <T>(path: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${engineUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const graphql = async <T>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const { status, body } = await post<Omit<GraphqlAnswer<T>, "status">>("/v1/graphql", { query, variables }, headers);
    return { status, ...body };
  };
  const adminHeaders = { "x-hasura-admin-secret": ADMIN_SECRET };
  return {
    scratch,
    backend,
    engineUrl,
    graphql,
    admin: (query, variables) => graphql(query, variables, adminHeaders),
    asPlayer: (playerId, query, variables) =>
      graphql(query, variables, { ...adminHeaders, "x-hasura-role": "player", "x-hasura-user-id": playerId }),
    async metadata(type, args = {}) {
      const { status, body } = await post<unknown>("/v1/metadata", { type, args }, adminHeaders);
      if (status !== 200) throw new Error(`${type} answered ${status}: ${JSON.stringify(body)}`);
      return body;
    },
    async close() {
      await engine.close();
      await backend.close();
      await scratch.dispose();
    },
  };
}

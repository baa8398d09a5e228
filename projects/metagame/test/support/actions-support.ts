/**
 * What the action and queue tests share: real HTTP stand-ins for third-party services (JSON-RPC,
 * Discord, the profile source) that record what they were sent, players made through the engine,
 * and a second backend + engine instance over a platform's database (as a scaled-out deployment
 * runs: every instance on one PostgreSQL).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { createLogger, type Database, freePort } from "@platform/core";
import { readGraphqlConfig, startGraphql } from "@platform/graphql";
import { readBackendConfig } from "../../backend/src/config.js";
import { metagameEngineEnv } from "../../backend/src/project.js";
import { type RunningBackend, startBackend } from "../../backend/src/server.js";
import { ADMIN_SECRET, type GraphqlAnswer, type TestPlatform } from "./platform.js";

export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface StandInAnswer {
  status?: number;
  json?: unknown;
}

export interface StandIn {
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

/** A node:http server answering with `handle` (which may hold a request as long as it likes). */
export async function startStandIn(handle: (request: StandInRequest) => StandInAnswer | Promise<StandInAnswer>): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString() };
      requests.push(request);
      const answer = await handle(request);
      res.writeHead(answer.status ?? 200, { "content-type": "application/json" }).end(JSON.stringify(answer.json ?? null));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;

/** A player (with its profile row, as MetaGame's webhook creates both) made through the engine as admin. */
export async function createPlayer(
  admin: TestPlatform["admin"],
  profile: Record<string, unknown> = {},
  player: Record<string, unknown> = {},
): Promise<{ id: string; address: string }> {
  const address = randomAddress();
  const answer = await admin<{ insert_profile_one: { playerId: string } }>(
    `mutation ($profile: profile_insert_input!) { insert_profile_one(object: $profile) { playerId } }`,
    { profile: { ...profile, player: { data: { ethereumAddress: address, ...player } } } },
  );
  if (answer.errors || !answer.data) throw new Error(`could not create a player: ${JSON.stringify(answer.errors)}`);
  return { id: answer.data.insert_profile_one.playerId, address };
}

export interface Instance {
  backend: RunningBackend;
  engineUrl: string;
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphqlAnswer<T>>;
  admin<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer<T>>;
  asPlayer<T = Record<string, unknown>>(playerId: string, query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer<T>>;
  close(): Promise<void>;
}

/** Requests to an engine at `engineUrl`, as platform.ts makes them. */
export function clientOf(engineUrl: string): Pick<Instance, "graphql" | "admin" | "asPlayer"> {
  const graphql = async <T>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const response = await fetch(`${engineUrl}/v1/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<GraphqlAnswer<T>, "status">) };
  };
  const adminHeaders = { "x-hasura-admin-secret": ADMIN_SECRET };
  return {
    graphql,
    admin: (query, variables) => graphql(query, variables, adminHeaders),
    asPlayer: (playerId, query, variables) =>
      graphql(query, variables, { ...adminHeaders, "x-hasura-role": "player", "x-hasura-user-id": playerId }),
  };
}

/** Another backend + engine over `db` (already migrated by the platform), with its own settings. */
export async function startInstance(
  db: Database,
  backendEnv: Record<string, string> = {},
  engineEnv: Record<string, string> = {},
): Promise<Instance> {
  const logger = createLogger({ level: "silent" });
  const enginePort = await freePort();
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const backend = await startBackend(
    readBackendConfig({
      METAGAME_BACKEND_HOST: "127.0.0.1",
      METAGAME_BACKEND_PORT: "0",
      METAGAME_GRAPHQL_URL: `${engineUrl}/v1/graphql`,
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      ...backendEnv,
    }),
    logger,
    { db },
  );
  try {
    const engine = await startGraphql(
      readGraphqlConfig({
        HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
        HASURA_GRAPHQL_SERVER_PORT: String(enginePort),
        HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
        HASURA_GRAPHQL_ENABLE_CONSOLE: "false",
        HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
        ...metagameEngineEnv(backend.url),
        ...engineEnv,
      }),
      logger,
      { db },
    );
    return {
      backend,
      engineUrl,
      ...clientOf(engineUrl),
      async close() {
        await engine.close();
        await backend.close();
      },
    };
  } catch (error) {
    await backend.close();
    throw error;
  }
}

/** Polls `probe` until it answers something other than undefined (or fails after `ms`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 15_000, what = "the expected state"): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Posts a Hasura-shaped action payload straight to a backend (for what the engine never sends). */
export async function postAction(backendUrl: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${backendUrl}/actions${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

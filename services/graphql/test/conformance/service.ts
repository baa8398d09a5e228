/**
 * One fresh in-process service per test class: embedded PGlite in memory, or a new database on the
 * server named by CONFORMANCE_DATABASE_URL / TEST_DATABASE_URL, created here and dropped on close.
 * Requests go through Fastify's inject with a timeout so a stuck request cannot hang the run. A class
 * whose helper servers call back into the engine (the actions webhook) also gets it on a real
 * listener (127.0.0.1, a free port): `url`.
 */
import { randomBytes } from "node:crypto";
import { createLogger, type Database } from "@platform/core";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { readGraphqlConfig } from "../../src/config.js";
import { createGraphql } from "../../src/server.js";

export const SERVER_URL = (process.env.CONFORMANCE_DATABASE_URL ?? process.env.TEST_DATABASE_URL)?.trim() || undefined;
export const REQUEST_TIMEOUT_MS = Number(process.env.CONFORMANCE_REQUEST_TIMEOUT_MS ?? 30_000);

export interface Reply {
  status: number;
  body: unknown;
  /** The raw text when the body is not JSON. */
  raw?: string;
  /** Response headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
}

export interface Service {
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** `http://127.0.0.1:<port>` when started with `listen`. */
  url?: string;
  /** The engine's admin secret (tests-py's hge_key), when the class runs with one. */
  adminSecret?: string;
  /** The engine's own database (PGlite, or the class's database on the server): tests-py's metadata_schema_url. */
  db: Database;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Also listen on 127.0.0.1 (a free port), for helper servers that call the engine over HTTP. */
  listen?: boolean;
  /** Settings over the runner's defaults (Hasura variable names). */
  env?: Record<string, string>;
}

export class TimeoutError extends Error {}

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function onServer(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function scratchDatabase(): Promise<{ url?: string; drop(): Promise<void> }> {
  if (!SERVER_URL) return { drop: async () => {} };
  const name = `hasura_conformance_${process.pid}_${randomBytes(4).toString("hex")}`;
  await onServer(SERVER_URL, `CREATE DATABASE "${name}"`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(SERVER_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function inject(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string>): Promise<Reply> {
  const response = await app.inject({
    method: "POST",
    url,
    payload: payload as Record<string, unknown>,
    headers: { "content-type": "application/json", ...headers },
  });
  const responseHeaders = response.headers as Reply["headers"];
  try {
    return { status: response.statusCode, body: JSON.parse(response.body), headers: responseHeaders };
  } catch {
    return { status: response.statusCode, body: response.body, raw: response.body, headers: responseHeaders };
  }
}

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const database = await scratchDatabase();
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_DATA_DIR: "memory://",
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "600000",
    HASURA_GRAPHQL_PG_CONNECTIONS: "4",
    HASURA_GRAPHQL_ENABLE_CONSOLE: "false",
    // tests-py starts graphql-engine with --stringify-numeric-types.
    HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES: "true",
    // Hasura's own test runs turn the admin's `extensions.internal` off (server/tests-py and
    // scripts/dev.sh set HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS=false): the fixtures' bodies have none.
    HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "false",
    ...(database.url ? { HASURA_GRAPHQL_DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  let service: Awaited<ReturnType<typeof createGraphql>>;
  try {
    service = await withTimeout(createGraphql(config, createLogger({ level: "silent" })), REQUEST_TIMEOUT_MS * 2, "service start");
  } catch (error) {
    await database.drop().catch(() => {});
    throw error;
  }
  let url: string | undefined;
  if (options.listen) {
    try {
      url = await withTimeout(service.app.listen({ host: "127.0.0.1", port: 0 }), REQUEST_TIMEOUT_MS, "service listen");
    } catch (error) {
      // Best effort: the listen failure is what the caller reports, not a failed clean-up after it.
      await withTimeout(service.close(), 10_000, "service close").catch(() => undefined);
      await database.drop().catch(() => undefined);
      throw error;
    }
  }
  const adminSecret = options.env?.HASURA_GRAPHQL_ADMIN_SECRET;
  // hge_ctx.v1q / v1metadataq send the admin secret; GraphQL requests carry what the case gives (check_query adds it).
  const withSecret = (path: string, headers: Record<string, string>) =>
    adminSecret && !/graphql|relay/.test(path) && !Object.keys(headers).some((h) => h.toLowerCase() === "x-hasura-admin-secret")
      ? { ...headers, "X-Hasura-Admin-Secret": adminSecret }
      : headers;
  return {
    post: (path, payload, headers = {}) =>
      withTimeout(inject(service.app, path, payload, withSecret(path, headers)), REQUEST_TIMEOUT_MS, `POST ${path}`),
    ...(url ? { url } : {}),
    ...(adminSecret ? { adminSecret } : {}),
    db: service.runtime.db,
    async close() {
      await withTimeout(service.close(), 10_000, "service close").catch(() => {});
      await withTimeout(database.drop(), 20_000, "drop database").catch(() => {});
    },
  };
}

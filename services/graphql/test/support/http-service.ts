/**
 * The whole service over HTTP for the auth suites: createGraphql on a database the test owns
 * (several services may share it; close() leaves it open), requests through Fastify's inject,
 * and the `probe`/`note` tables whose permissions reveal the role and user id a request got.
 */
import { createLogger, type Database } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { readGraphqlConfig } from "../../src/config.js";
import { createAuthConfig } from "../../src/engine/auth/config.js";
import type { JwksOptions } from "../../src/engine/auth/jwks.js";
import { createGraphql } from "../../src/server.js";

export const SERVICE_ADMIN_SECRET = "http-service-admin-secret";

export interface HttpService {
  app: FastifyInstance;
  /** POSTs a query to /v1/graphql; returns the status and the parsed body. */
  graphql(query: string, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** The role a request gets: the one `probe` row its permission lets it see (or the errors). */
  role(headers: Record<string, string>): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A service over `db` configured by `env` (the admin secret added). `jwks` options (a test
 * clock, cooldowns) are not environment settings, so the auth configuration is rebuilt with them.
 */
export async function openHttpService(db: Database, env: Record<string, string>, jwks?: JwksOptions): Promise<HttpService> {
  const full: Record<string, string | undefined> = {
    HASURA_GRAPHQL_ADMIN_SECRET: SERVICE_ADMIN_SECRET,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    ...env,
  };
  let config = readGraphqlConfig(full);
  if (jwks) {
    const auth = createAuthConfig({
      adminSecret: full.HASURA_GRAPHQL_ADMIN_SECRET,
      jwtSecret: full.HASURA_GRAPHQL_JWT_SECRET,
      jwtSecrets: full.HASURA_GRAPHQL_JWT_SECRETS,
      unauthorizedRole: full.HASURA_GRAPHQL_UNAUTHORIZED_ROLE,
      jwks,
    });
    config = { ...config, auth };
  }
  const service = await createGraphql(config, createLogger({ level: "silent" }), { db });
  const graphql = async (query: string, headers: Record<string, string> = {}) => {
    const res = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: { query }, headers });
    return { status: res.statusCode, body: res.json() as unknown };
  };
  return {
    app: service.app,
    graphql,
    async role(headers) {
      const { status, body } = await graphql("{ probe { role } }", headers);
      expect(status).toBe(200);
      const rows = (body as { data?: { probe: { role: string }[] } }).data?.probe;
      if (!rows) return body;
      expect(rows).toHaveLength(1);
      return rows[0]?.role;
    },
    close: () => service.close(),
  };
}

/** The body Hasura answers on /v1/graphql for a request-level error (HTTP 200, no `data`). */
export const requestError = (code: string, message: string) => ({ errors: [{ message, extensions: { path: "$", code } }] });

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Creates `probe` (one row per role, each role sees only its own row through `X-Hasura-Role`)
 * and `note` (each of `userRoles` sees the rows whose `owner` is its `X-Hasura-User-Id`), via
 * the admin API of `service`, as a client of Hasura would.
 */
export async function createProbeTables(service: HttpService, roles: string[], userRoles: string[], ownerType = "text"): Promise<void> {
  const admin = { "x-hasura-admin-secret": SERVICE_ADMIN_SECRET };
  const post = (url: string, payload: unknown) =>
    service.app.inject({ method: "POST", url, payload: payload as Record<string, unknown>, headers: admin });
  const values = roles.map((r) => `(${literal(r)})`).join(", ");
  const sql = `CREATE TABLE probe (role text PRIMARY KEY); INSERT INTO probe VALUES ${values};
    CREATE TABLE note (id serial PRIMARY KEY, owner ${ownerType} NOT NULL, body text NOT NULL);`;
  const created = await post("/v2/query", { type: "run_sql", args: { sql } });
  expect(created.statusCode, created.body).toBe(200);
  const table = (name: string) => ({ source: "default", table: { schema: "public", name } });
  const select = (name: string, role: string, permission: unknown) => ({
    type: "pg_create_select_permission",
    args: { ...table(name), role, permission },
  });
  const tracked = await post("/v1/metadata", {
    type: "bulk",
    args: [
      { type: "pg_track_table", args: table("probe") },
      { type: "pg_track_table", args: table("note") },
      ...roles.map((role) => select("probe", role, { columns: ["role"], filter: { role: { _eq: "X-Hasura-Role" } } })),
      ...userRoles.map((role) => select("note", role, { columns: ["body"], filter: { owner: { _eq: "X-Hasura-User-Id" } } })),
    ],
  });
  expect(tracked.statusCode, tracked.body).toBe(200);
}

/** Adds notes through run_sql (test-made values, written as quoted literals). */
export async function addNotes(service: HttpService, notes: { owner: string; body: string }[]): Promise<void> {
  const values = notes.map((n) => `(${literal(n.owner)}, ${literal(n.body)})`).join(", ");
  const res = await service.app.inject({
    method: "POST",
    url: "/v2/query",
    payload: { type: "run_sql", args: { sql: `INSERT INTO note (owner, body) VALUES ${values}` } },
    headers: { "x-hasura-admin-secret": SERVICE_ADMIN_SECRET },
  });
  expect(res.statusCode, res.body).toBe(200);
}

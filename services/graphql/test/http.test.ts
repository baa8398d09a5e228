/** The service over HTTP as a client sees it: admin endpoints, /v1/graphql, auth modes, CORS, batches. */
import { createLogger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { createGraphql } from "../src/server.js";

const SECRET = "test-admin-secret";
const JWT_KEY = "a-jwt-signing-secret-of-at-least-32-chars!";

async function open(extra: Record<string, string> = {}) {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_DATA_DIR: "memory://",
    HASURA_GRAPHQL_ADMIN_SECRET: SECRET,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    ...extra,
  });
  return createGraphql(config, createLogger({ level: "silent" }));
}

let service: Awaited<ReturnType<typeof open>>;
let app: FastifyInstance;
const post = (url: string, payload: unknown, headers: Record<string, string> = { "x-hasura-admin-secret": SECRET }) =>
  app.inject({ method: "POST", url, payload: payload as Record<string, unknown>, headers });

beforeAll(async () => {
  service = await open({
    HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({
      type: "HS256",
      key: JWT_KEY,
      claims_map: {
        "x-hasura-allowed-roles": { path: "$.allowed_roles", default: ["authenticated"] },
        "x-hasura-default-role": { path: "$.role" },
        "x-hasura-user-id": { path: "$.sub" },
      },
    }),
  });
  app = service.app;
  const setup = await post("/v2/query", {
    type: "run_sql",
    args: {
      sql: "CREATE TABLE note (id serial PRIMARY KEY, owner text NOT NULL, body text NOT NULL); INSERT INTO note (owner, body) VALUES ('u1', 'mine'), ('u2', 'theirs');",
    },
  });
  expect(setup.statusCode).toBe(200);
  expect(setup.json()).toEqual({ result_type: "CommandOk", result: null });
  const track = await post("/v1/metadata", {
    type: "bulk",
    args: [
      { type: "pg_track_table", args: { source: "default", table: { schema: "public", name: "note" } } },
      {
        type: "pg_create_select_permission",
        args: {
          source: "default",
          table: "note",
          role: "authenticated",
          permission: { columns: ["id", "body"], filter: { owner: { _eq: "X-Hasura-User-Id" } } },
        },
      },
    ],
  });
  expect(track.statusCode).toBe(200);
});
afterAll(async () => service.close());

describe("GraphQL service over HTTP", () => {
  it("answers the legacy /v1/query data operations with every digit of a bigint past 2^53", async () => {
    const created = await post("/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE counter (id int PRIMARY KEY, big bigint)" } });
    expect(created.statusCode).toBe(200);
    expect((await post("/v1/metadata", { type: "pg_track_table", args: { table: "counter" } })).statusCode).toBe(200);
    const insert = await app.inject({
      method: "POST",
      url: "/v1/query",
      headers: { "x-hasura-admin-secret": SECRET, "content-type": "application/json" },
      payload: '{"type":"insert","args":{"table":"counter","objects":[{"id":1,"big":9007199254740993}],"returning":["big"]}}',
    });
    expect(insert.body).toBe('{"affected_rows":1,"returning":[{"big":9007199254740993}]}');
    const select = await post("/v1/query", { type: "select", args: { table: "counter", columns: ["id", "big"] } });
    expect(select.statusCode).toBe(200);
    expect(select.headers["content-type"]).toMatch(/^application\/json/);
    expect(select.body).toBe('[{"id":1,"big":9007199254740993}]');
  });

  it("answers health and version", async () => {
    const health = await app.inject({ method: "GET", url: "/healthz" });
    expect(health.statusCode).toBe(200);
    expect(health.body).toBe("OK");
    expect((await app.inject({ method: "GET", url: "/v1/version" })).json()).toEqual({ version: expect.stringMatching(/^v2\./) });
  });

  it("serves queries to the admin and runs run_sql results as Hasura does", async () => {
    const res = await post("/v1/graphql", { query: "{ note(order_by: {id: asc}) { body owner } }" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        note: [
          { body: "mine", owner: "u1" },
          { body: "theirs", owner: "u2" },
        ],
      },
    });
    const tuples = await post("/v2/query", { type: "run_sql", args: { sql: "SELECT id, body FROM note ORDER BY id" } });
    expect(tuples.json()).toEqual({
      result_type: "TuplesOk",
      result: [
        ["id", "body"],
        ["1", "mine"],
        ["2", "theirs"],
      ],
    });
  });

  it("takes the role and session variables from headers with the admin secret", async () => {
    const res = await post(
      "/v1/graphql",
      { query: "{ note { body } }" },
      { "x-hasura-admin-secret": SECRET, "x-hasura-role": "authenticated", "x-hasura-user-id": "u2" },
    );
    expect(res.json()).toEqual({ data: { note: [{ body: "theirs" }] } });
  });

  it("verifies JWTs issued by our auth service through claims_map", async () => {
    const token = await new SignJWT({ role: "authenticated", aud: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("u1")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(JWT_KEY));
    const res = await post("/v1/graphql", { query: "{ note { body } }" }, { authorization: `Bearer ${token}` });
    expect(res.json()).toEqual({ data: { note: [{ body: "mine" }] } });
    // The signature's first character changed (its last ones may carry bits the decoder ignores, so changing them could leave it valid).
    const [header, claims, signature = ""] = token.split(".");
    const forged = `${header}.${claims}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    const tampered = await post("/v1/graphql", { query: "{ note { body } }" }, { authorization: `Bearer ${forged}` });
    expect(tampered.statusCode).toBe(200);
    expect(tampered.json().errors[0].extensions.code).toBe("invalid-jwt");
  });

  it("rejects a wrong admin secret with 200 on /v1/graphql and 401 on the metadata API", async () => {
    const gql = await post("/v1/graphql", { query: "{ note { body } }" }, { "x-hasura-admin-secret": "wrong" });
    expect(gql.statusCode).toBe(200);
    expect(gql.json()).toEqual({
      errors: [{ message: "invalid x-hasura-admin-secret/x-hasura-access-key", extensions: { path: "$", code: "access-denied" } }],
    });
    const meta = await post("/v1/metadata", { type: "export_metadata", args: {} }, { "x-hasura-admin-secret": "wrong" });
    expect(meta.statusCode).toBe(401);
    expect(meta.json()).toMatchObject({ code: "access-denied", path: "$" });
  });

  it("answers metadata errors with Hasura's status and body", async () => {
    const again = await post("/v1/metadata", { type: "pg_track_table", args: { source: "default", table: "note" } });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: "already-tracked", error: 'view/table already tracked: "note"' });
    const exported = await post("/v1/metadata", { type: "export_metadata", args: {} });
    expect(exported.json().sources[0].tables[0].table).toEqual({ schema: "public", name: "note" });
  });

  it("serves the legacy /v1alpha1/graphql with HTTP 400 for errors", async () => {
    const ok = await post("/v1alpha1/graphql", { query: "{ note(limit: 1) { id } }" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ data: { note: [{ id: 1 }] } });
    const bad = await post("/v1alpha1/graphql", { query: "{ nope }" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].extensions.code).toBe("validation-failed");
  });

  it("answers batches with an array and sends CORS headers", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/graphql",
      payload: [{ query: "{ a: note(limit: 1) { id } }" }, { query: "{ b: __typename }" }] as unknown as Record<string, unknown>,
      headers: { "x-hasura-admin-secret": SECRET, origin: "https://app.example.com" },
    });
    expect(res.json()).toEqual([{ data: { a: [{ id: 1 }] } }, { data: { b: "query_root" } }]);
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    const console = await app.inject({ method: "GET", url: "/console" });
    expect(console.headers["content-type"]).toMatch(/text\/html/);
  });
});

/** Signing keys (generated and shared, configured, HS256, ES256, EdDSA) and the migrations. */
import { generateKeyPairSync } from "node:crypto";
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../src/db/migrations.js";
import { backends, email, jwks, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

const decode = (token: string, part: 0 | 1) => JSON.parse(Buffer.from(token.split(".")[part] as string, "base64url").toString());

async function session(server: TestServer) {
  const client = server.client();
  const { data, error } = await client.signUp({ email: email(), password: "secret-1" });
  if (error || !data.session) throw error ?? new Error("no session");
  return { client, token: data.session.access_token };
}

describe.each(backends)("signing keys on %s", (backend) => {
  let database: TestDatabase;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startTestServer(database.db, env);
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    database = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await database?.dispose();
  });

  it("re-runs migrations without applying anything twice, in the DB_NAMESPACE schema", async () => {
    const first = await runMigrations(database.db, "mig");
    expect(first).toEqual([1, 2, 3, 4, 5]);
    expect(await runMigrations(database.db, "mig")).toEqual([]);
    const { rows } = await database.db.query<{ name: string }>(
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'mig' ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        "users",
        "identities",
        "sessions",
        "refresh_tokens",
        "one_time_tokens",
        "signing_keys",
        "schema_migrations",
        "oauth_client_states",
      ]),
    );
    const functions = await database.db.query<{ name: string }>(
      sql`SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'mig' ORDER BY 1`,
    );
    expect(functions.rows.map((r) => r.name)).toEqual(["email", "jwt", "role", "uid"]);
  });

  it("generates one key for instances starting together, and every instance verifies the others' tokens", async () => {
    const env = { AUTH_DB_NAMESPACE: "race" };
    const [a, b, c] = await Promise.all([start(env), start(env), start(env)]);
    const kids = await Promise.all([a, b, c].map(async (s) => (await jwks(s)).keys.map((k) => k.kid)));
    expect(kids[0]).toHaveLength(1);
    expect(kids[1]).toEqual(kids[0]);
    expect(kids[2]).toEqual(kids[0]);
    const { token } = await session(a as TestServer);
    expect((await (c as TestServer).client().getUser(token)).error).toBeNull();
    const later = await start(env);
    expect((await later.client().getUser(token)).error).toBeNull();
  });

  it("signs HS256 with JWT_SECRET when asked; JWKS lists no secret and getClaims falls back to /user", async () => {
    const server = await start({ AUTH_DB_NAMESPACE: "hs", AUTH_JWT_ALGORITHM: "HS256" });
    const { client, token } = await session(server);
    expect(decode(token, 0)).toEqual({ alg: "HS256", typ: "JWT" });
    expect(await jwks(server)).toEqual({ keys: [] });
    const { data, error } = await client.getClaims();
    expect(error).toBeNull();
    expect(data?.claims.sub).toBe(decode(token, 1).sub);
  });

  it.each(["ES256", "EdDSA"])("signs with a generated %s key", async (alg) => {
    const server = await start({ AUTH_DB_NAMESPACE: alg.toLowerCase(), AUTH_JWT_ALGORITHM: alg });
    const { client, token } = await session(server);
    expect(decode(token, 0)).toMatchObject({ alg, kid: expect.any(String) });
    const published = await jwks(server);
    expect(published.keys[0]).toMatchObject({ alg, kty: alg === "ES256" ? "EC" : "OKP" });
    expect((await client.getUser()).error).toBeNull();
    if (alg === "ES256") expect((await client.getClaims()).error).toBeNull();
  });

  it("signs with the AUTH_JWT_KEYS key marked for signing and verifies with every configured key", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const signing = { ...privateKey.export({ format: "jwk" }), kid: "configured-rsa", alg: "RS256", key_ops: ["sign", "verify"] };
    const hmac = {
      kty: "oct",
      k: Buffer.from("another-shared-secret-for-verification-only").toString("base64url"),
      kid: "old-hs",
      alg: "HS256",
      key_ops: ["verify"],
    };
    const server = await start({ AUTH_DB_NAMESPACE: "configured", GOTRUE_JWT_KEYS: JSON.stringify([signing, hmac]) });
    const { client, token } = await session(server);
    expect(decode(token, 0)).toMatchObject({ alg: "RS256", kid: "configured-rsa" });
    const published = await jwks(server);
    expect(published.keys.map((k) => k.kid)).toEqual(["configured-rsa"]);
    expect((await client.getClaims()).error).toBeNull();
    const { rows } = await database.db.query(sql`SELECT id FROM configured.signing_keys`);
    expect(rows).toEqual([]);
  });
});

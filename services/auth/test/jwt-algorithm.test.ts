/**
 * Which algorithm signs when no AUTH_JWT_KEYS are given: HS256 with JWT_SECRET when the secret
 * is the only key material (GoTrue's behaviour), RS256 with a generated key when nothing is
 * configured, and AUTH_JWT_ALGORITHM over both.
 */
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  backends,
  email,
  JWT_SECRET,
  jwks,
  openTestDatabase,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

const header = (token: string) => JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString());

async function accessToken(server: TestServer): Promise<string> {
  const { data, error } = await server.client().signUp({ email: email(), password: "secret-1" });
  if (error || !data.session) throw error ?? new Error("no session");
  return data.session.access_token;
}

describe.each(backends)("JWT signing algorithm on %s", (backend) => {
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

  it("signs HS256 with JWT_SECRET when it is the only key material; JWKS is empty then", async () => {
    const server = await start({ AUTH_DB_NAMESPACE: "secret_only", AUTH_JWT_ALGORITHM: "" });
    const token = await accessToken(server);
    expect(header(token)).toEqual({ alg: "HS256", typ: "JWT" });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(JWT_SECRET), { algorithms: ["HS256"] });
    expect(payload.role).toBe("authenticated");
    const response = await server.request("/.well-known/jwks.json");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ keys: [] });
    expect((await server.client().getUser(token)).error).toBeNull();
  });

  it("signs RS256 with a generated key, verifiable through the JWKS, when nothing is configured", async () => {
    const server = await start({ AUTH_DB_NAMESPACE: "no_keys", AUTH_JWT_ALGORITHM: "", AUTH_JWT_SECRET: "" });
    const token = await accessToken(server);
    const published = await jwks(server);
    expect(published.keys).toHaveLength(1);
    expect(header(token)).toEqual({ alg: "RS256", typ: "JWT", kid: published.keys[0]?.kid });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`)));
    expect(payload.role).toBe("authenticated");
    await expect(jwtVerify(token, new TextEncoder().encode(JWT_SECRET))).rejects.toThrow();
  });

  it("follows an explicit AUTH_JWT_ALGORITHM over the secret-only rule", async () => {
    const server = await start({ AUTH_DB_NAMESPACE: "explicit", AUTH_JWT_ALGORITHM: "ES256" });
    const token = await accessToken(server);
    expect(header(token)).toMatchObject({ alg: "ES256", kid: expect.any(String) });
    await jwtVerify(token, createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`)));
    const rs = await start({ AUTH_DB_NAMESPACE: "explicit_rs", GOTRUE_JWT_ALGORITHM: "RS256", AUTH_JWT_ALGORITHM: "" });
    expect(header(await accessToken(rs)).alg).toBe("RS256");
  });
});

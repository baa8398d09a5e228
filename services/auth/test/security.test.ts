/** Bearer tokens that must be refused, and getClaims through the published JWKS. */
import { createHmac, createPrivateKey, createPublicKey, type JsonWebKey } from "node:crypto";
import { sql } from "@platform/core";
import { AuthSessionMissingError } from "@supabase/auth-js";
import { type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  backends,
  email,
  JWT_SECRET,
  jwks,
  one,
  openTestDatabase,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const decode = (token: string, part: 0 | 1) => JSON.parse(Buffer.from(token.split(".")[part] as string, "base64url").toString());
const secret = new TextEncoder().encode(JWT_SECRET);

describe.each(backends)("token checks on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  async function signedIn() {
    const client = server.client();
    const { data, error } = await client.signUp({ email: email(), password: "secret-1" });
    if (error || !data.session) throw error ?? new Error("no session");
    return { client, session: data.session, claims: decode(data.session.access_token, 1) as JWTPayload & Record<string, unknown> };
  }

  async function getUser(token: string, headers: Record<string, string> = {}) {
    const response = await server.request("/user", { headers: { authorization: `Bearer ${token}`, ...headers } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const hs256 = (claims: JWTPayload, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT", ...header }).sign(secret);

  it("verifies getClaims through /.well-known/jwks.json", async () => {
    const { client, claims } = await signedIn();
    const published = await jwks(server);
    expect(published.keys).toHaveLength(1);
    expect(published.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", key_ops: ["verify"], kid: expect.any(String) });
    expect(published.keys[0]).not.toHaveProperty("d");
    const { data, error } = await client.getClaims();
    expect(error).toBeNull();
    expect(data?.claims).toMatchObject({ sub: claims.sub, session_id: claims.session_id, role: "authenticated" });
    expect(data?.header).toMatchObject({ alg: "RS256", kid: published.keys[0]?.kid });
  });

  it("accepts an HS256 token signed with JWT_SECRET (compatibility)", async () => {
    const { claims } = await signedIn();
    const token = await hs256({ ...claims });
    expect((await getUser(token)).status).toBe(200);
  });

  it("refuses a missing bearer with 401 no_authorization", async () => {
    const response = await server.request("/user", { headers: { "x-supabase-api-version": "2024-01-01" } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: "no_authorization", message: "This endpoint requires a valid Bearer token" });
    const client = server.client();
    const { error } = await client.getUser("not-a-jwt");
    expect({ code: error?.code, status: error?.status }).toEqual({ code: "bad_jwt", status: 403 });
  });

  it("refuses alg none", async () => {
    const { claims } = await signedIn();
    const token = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    const { status, body } = await getUser(token);
    expect(status).toBe(403);
    expect(body).toMatchObject({ error_code: "bad_jwt" });
    expect(String(body.msg)).toMatch(/^invalid JWT: unable to parse or verify signature, /);
  });

  it("refuses HS256 tokens keyed with the RSA public key (algorithm confusion)", async () => {
    const { session, claims } = await signedIn();
    const kid = decode(session.access_token, 0).kid;
    const published = await jwks(server);
    const pem = createPublicKey({ key: published.keys[0] as JsonWebKey, format: "jwk" })
      .export({ type: "spki", format: "pem" })
      .toString();
    for (const header of [
      { alg: "HS256", typ: "JWT", kid },
      { alg: "HS256", typ: "JWT" },
    ]) {
      const unsigned = `${b64(header)}.${b64(claims)}`;
      const signature = createHmac("sha256", pem).update(unsigned).digest("base64url");
      const { status, body } = await getUser(`${unsigned}.${signature}`);
      expect(status).toBe(403);
      expect(body.error_code).toBe("bad_jwt");
    }
    // And an RS256 token naming an unknown key.
    const forged = `${b64({ alg: "RS256", typ: "JWT", kid: "nope" })}.${b64(claims)}.${session.access_token.split(".")[2]}`;
    expect((await getUser(forged)).status).toBe(403);
  });

  it("refuses a tampered token", async () => {
    const { session, claims } = await signedIn();
    const [header, , signature] = session.access_token.split(".");
    const tampered = `${header}.${b64({ ...claims, role: "service_role" })}.${signature}`;
    const { status, body } = await getUser(tampered);
    expect(status).toBe(403);
    expect(body.msg).toBe("invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid");
  });

  it("refuses an expired token, also when signed with the stored RS256 key", async () => {
    const { claims, session } = await signedIn();
    const now = Math.floor(Date.now() / 1000);
    const expired = { ...claims, iat: now - 7200, exp: now - 3600 };
    const row = await one<{ private_jwk: Record<string, unknown> }>(
      server.db,
      sql`SELECT private_jwk FROM ${server.table("signing_keys")} LIMIT 1`,
    );
    const rsaKey = createPrivateKey({ key: row.private_jwk as never, format: "jwk" });
    const kid = decode(session.access_token, 0).kid;
    const rs = await new SignJWT(expired).setProtectedHeader({ alg: "RS256", typ: "JWT", kid }).sign(rsaKey);
    for (const token of [rs, await hs256(expired)]) {
      const { status, body } = await getUser(token, { "x-supabase-api-version": "2024-01-01" });
      expect(status).toBe(403);
      expect(body).toEqual({
        code: "bad_jwt",
        message: "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired",
      });
    }
    // The same key with a fresh expiry is accepted: only the expiry was wrong.
    const fresh = await new SignJWT({ ...claims, exp: now + 60 }).setProtectedHeader({ alg: "RS256", typ: "JWT", kid }).sign(rsaKey);
    expect((await getUser(fresh)).status).toBe(200);
  });

  it("refuses a token for another audience", async () => {
    const { claims } = await signedIn();
    const { status, body } = await getUser(await hs256({ ...claims, aud: "somebody-else" }));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error_code: "validation_failed", msg: "Token audience doesn't match request audience" });
  });

  it("refuses tokens without a usable sub", async () => {
    const { claims } = await signedIn();
    const { sub: _sub, ...anonymousClaims } = claims;
    expect((await getUser(await hs256(anonymousClaims))).body).toMatchObject({
      code: 403,
      error_code: "bad_jwt",
      msg: "invalid claim: missing sub claim",
    });
    expect((await getUser(await hs256({ ...claims, sub: "42" }))).body).toMatchObject({
      code: 400,
      msg: "invalid claim: sub claim must be a UUID",
    });
  });

  it("refuses the token of a deleted user", async () => {
    const { client, session } = await signedIn();
    await server.db.query(sql`DELETE FROM ${server.table("users")} WHERE id = ${session.user.id}`);
    const { error } = await client.getUser();
    expect({ code: error?.code, status: error?.status, message: error?.message }).toEqual({
      code: "user_not_found",
      status: 403,
      message: "User from sub claim in JWT does not exist",
    });
  });

  it("refuses the token of a revoked session", async () => {
    const { session } = await signedIn();
    await server.db.query(sql`DELETE FROM ${server.table("sessions")} WHERE id = ${decode(session.access_token, 1).session_id}`);
    const { error } = await server.client().getUser(session.access_token);
    expect(error).toBeInstanceOf(AuthSessionMissingError);
    const { status, body } = await getUser(session.access_token);
    expect(status).toBe(403);
    expect(body).toMatchObject({ error_code: "session_not_found", msg: "Session from session_id claim in JWT does not exist" });
  });

  it("refuses a banned user's token", async () => {
    const { session } = await signedIn();
    await server.db.query(sql`UPDATE ${server.table("users")} SET banned_until = now() + interval '1 day' WHERE id = ${session.user.id}`);
    expect((await getUser(session.access_token)).body).toMatchObject({ code: 403, error_code: "user_banned" });
    const refresh = await server.client().refreshSession({ refresh_token: session.refresh_token });
    expect({ code: refresh.error?.code, status: refresh.error?.status }).toEqual({ code: "user_banned", status: 400 });
  });
});

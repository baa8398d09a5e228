/**
 * The HASURA_GRAPHQL_JWT_SECRETS the README gives for wiring the engine to the auth service
 * (with roles anon/authenticated; `npm start`'s JWT mode for the MetaGame project has the same
 * shape with role player, see scripts/local/env.ts): entry 1 trusts the auth service's user sessions through its JWKS (issuer = the
 * auth issuer, `claims_map` from the GoTrue claims), entry 2 the Supabase-style API keys
 * (HS256 with the JWT secret, issuer "supabase", Hasura claims in the default namespace; the
 * service_role key's claims make it admin, as scripts/local/secrets.ts mints it).
 */
import { randomUUID } from "node:crypto";
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAMESPACE } from "./support/auth.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { addNotes, createProbeTables, type HttpService, openHttpService, requestError } from "./support/http-service.js";
import { type LocalServer, sendJson, startLocalServer } from "./support/local-http.js";

const AUTH_ISSUER = "http://localhost:54321/auth/v1";
const API_KEY_ISSUER = "supabase";
const JWT_SECRET = "local-jwt-secret-generated-by-npm-start-0123456789";

/** The list the README gives when the auth service signs RS256. */
function localJwtSecrets(jwksUrl: string) {
  return [
    {
      jwk_url: jwksUrl,
      issuer: AUTH_ISSUER,
      claims_map: {
        "x-hasura-allowed-roles": ["anon", "authenticated"],
        "x-hasura-default-role": { path: "$.role" },
        "x-hasura-user-id": { path: "$.sub" },
      },
    },
    { type: "HS256", key: JWT_SECRET, issuer: API_KEY_ISSUER },
  ];
}

/** An API key as mintApiKey() makes it. */
function apiKey(role: "anon" | "service_role"): Promise<string> {
  const hasuraRole = role === "service_role" ? "admin" : "anon";
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role, [NAMESPACE]: { "x-hasura-default-role": hasuraRole, "x-hasura-allowed-roles": [hasuraRole] } })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(API_KEY_ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(JWT_SECRET));
}

describe("the JWT secrets of the local start", () => {
  let database: TestDatabase;
  let auth: LocalServer;
  let service: HttpService;
  let signingKey: CryptoKey;
  const alice = randomUUID();
  const bob = randomUUID();

  /** An access token as the auth service (GoTrue's claims) issues it, RS256 with a kid from its JWKS. */
  const userToken = (sub: string, extra: Record<string, unknown> = {}) =>
    new SignJWT({ aud: "authenticated", role: "authenticated", email: "a@example.com", aal: "aal1", session_id: randomUUID(), ...extra })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", kid: "auth-key-1" })
      .setIssuer(AUTH_ISSUER)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(signingKey);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256", { extractable: true });
    signingKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "auth-key-1", alg: "RS256", use: "sig" };
    auth = await startLocalServer((req, res) =>
      req.url === "/.well-known/jwks.json" ? sendJson(res, 200, { keys: [jwk] }) : sendJson(res, 404, {}),
    );
    database = await openTestDatabase("pglite");
    const secrets = localJwtSecrets(`${auth.url}/.well-known/jwks.json`);
    service = await openHttpService(database.db, { HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify(secrets) });
    await createProbeTables(service, ["anon", "authenticated"], ["authenticated"], "uuid");
    await addNotes(service, [
      { owner: alice, body: "alice's" },
      { owner: bob, body: "bob's" },
    ]);
  });
  afterAll(async () => {
    await service?.close();
    await auth?.close();
    await database?.dispose();
  });

  it("gives a user session the role authenticated and its sub as X-Hasura-User-Id", async () => {
    const token = await userToken(alice);
    expect(await service.role(bearer(token))).toBe("authenticated");
    expect(await service.graphql("{ note { body } }", bearer(token))).toEqual({
      status: 200,
      body: { data: { note: [{ body: "alice's" }] } },
    });
    expect((await service.graphql("{ note { body } }", bearer(await userToken(bob)))).body).toEqual({
      data: { note: [{ body: "bob's" }] },
    });
  });

  it("gives the anon key the role anon, which sees no notes", async () => {
    const key = await apiKey("anon");
    expect(await service.role(bearer(key))).toBe("anon");
    expect((await service.graphql("{ note { body } }", bearer(key))).body).toEqual({
      errors: [
        { message: "field 'note' not found in type: 'query_root'", extensions: { path: "$.selectionSet.note", code: "validation-failed" } },
      ],
    });
  });

  it("makes the service_role key admin", async () => {
    const { body } = await service.graphql(
      "{ probe(order_by: {role: asc}) { role } note(order_by: {body: asc}) { body } }",
      bearer(await apiKey("service_role")),
    );
    expect(body).toEqual({
      data: { probe: [{ role: "anon" }, { role: "authenticated" }], note: [{ body: "alice's" }, { body: "bob's" }] },
    });
  });

  it("keeps the two kinds apart by issuer", async () => {
    // A user token may not ask for a role outside the claims_map's allowed roles.
    expect((await service.graphql("{ probe { role } }", { ...bearer(await userToken(alice)), "x-hasura-role": "admin" })).body).toEqual(
      requestError("access-denied", "Your requested role is not in allowed roles"),
    );
    // A session token whose role claim is not an allowed role is refused the same way.
    expect((await service.graphql("{ probe { role } }", bearer(await userToken(alice, { role: "service_role" })))).body).toEqual(
      requestError("access-denied", "Your requested role is not in allowed roles"),
    );
    // An HS256 token claiming the auth issuer is checked against the JWKS, which has no such key.
    const forged = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(AUTH_ISSUER)
      .setSubject(alice)
      .sign(new TextEncoder().encode(JWT_SECRET));
    expect(
      ((await service.graphql("{ probe { role } }", bearer(forged))).body as ReturnType<typeof requestError>).errors[0]?.extensions.code,
    ).toBe("invalid-jwt");
  });
});

/**
 * HASURA_GRAPHQL_JWT_SECRETS through /v1/graphql: which secret verifies which token (Hasura's
 * processJwt_ in server/src-lib/Hasura/Server/Auth/JWT.hs and
 * https://hasura.io/docs/latest/auth/authentication/multiple-jwt-secrets/#resolution-logic):
 * tokens are read where each secret looks, kept when the issuers agree (or one is absent), and
 * exactly one kept pair is verified; none found is the unauthenticated flow, none kept is
 * JWTNotInIssuer, several kept is an ambiguity error.
 */
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HS_SECRET, hasuraClaims, hsKey, NAMESPACE, sign } from "./support/auth.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import {
  addNotes,
  createProbeTables,
  type HttpService,
  openHttpService,
  requestError,
  SERVICE_ADMIN_SECRET,
} from "./support/http-service.js";
import { type LocalServer, sendJson, startLocalServer } from "./support/local-http.js";

const OTHER_HS_SECRET = "another-hmac-secret-that-is-32-bytes-or-more";
const ROLES = ["user", "editor", "anonymous"];

let database: TestDatabase;
let jwks: LocalServer;
let rsPrivate: CryptoKey;

const claims = (iss?: string, extra: Record<string, unknown> = {}): JWTPayload => ({
  ...(iss === undefined ? {} : { iss }),
  [NAMESPACE]: hasuraClaims(extra),
});
const hs = (payload: JWTPayload, secret = HS_SECRET) => sign(payload, hsKey(secret), "HS256");
const rs = (payload: JWTPayload) => sign(payload, rsPrivate, "RS256", { kid: "rs-1" });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  database = await openTestDatabase("pglite");
  const pair = await generateKeyPair("RS256", { extractable: true });
  rsPrivate = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "rs-1", alg: "RS256", use: "sig" };
  jwks = await startLocalServer((_req, res) => sendJson(res, 200, { keys: [jwk] }, { "cache-control": "max-age=600" }));
  // The tables and permissions live in the shared database; each service below loads them.
  const setup = await openHttpService(database.db, {});
  await createProbeTables(setup, ROLES, ["user", "editor"]);
  await addNotes(setup, [
    { owner: "42", body: "by 42" },
    { owner: "7", body: "by 7" },
  ]);
  await setup.close();
});
afterAll(async () => {
  await jwks?.close();
  await database?.dispose();
});

describe("an HS256 secret and a jwk_url secret, told apart by issuer", () => {
  let service: HttpService;
  beforeAll(async () => {
    service = await openHttpService(database.db, {
      HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify([
        { type: "HS256", key: HS_SECRET, issuer: "hs-issuer" },
        { jwk_url: `${jwks.url}/jwks`, issuer: "rs-issuer" },
      ]),
    });
  });
  afterAll(() => service?.close());

  it("verifies each token with the secret of its issuer", async () => {
    expect(await service.role(bearer(await hs(claims("hs-issuer"))))).toBe("user");
    expect(await service.role(bearer(await rs(claims("rs-issuer", { "x-hasura-default-role": "editor" }))))).toBe("editor");
    const notes = await service.graphql("{ note { body } }", bearer(await rs(claims("rs-issuer", { "x-hasura-user-id": "7" }))));
    expect(notes).toEqual({ status: 200, body: { data: { note: [{ body: "by 7" }] } } });
    expect(jwks.requests.filter((r) => r.url === "/jwks")).toHaveLength(1);
  });

  it("takes the secret by issuer, not by trying each: an RS256 token naming the HS256 issuer fails", async () => {
    const { status, body } = await service.graphql("{ probe { role } }", bearer(await rs(claims("hs-issuer"))));
    expect(status).toBe(200);
    expect(body).toEqual(requestError("invalid-jwt", "Could not verify JWT: JWSError JWSInvalidSignature"));
  });

  it("answers JWTNotInIssuer when no secret names the token's issuer", async () => {
    const { status, body } = await service.graphql("{ probe { role } }", bearer(await hs(claims("someone-else"))));
    expect(status).toBe(200);
    expect(body).toEqual(requestError("invalid-jwt", "Could not verify JWT: JWTNotInIssuer"));
  });

  it("refuses a token without issuer that both secrets could take", async () => {
    const { status, body } = await service.graphql("{ probe { role } }", bearer(await hs(claims())));
    expect(status).toBe(200);
    expect(body).toEqual(requestError("invalid-headers", "Could not verify JWT: Multiple JWTs found"));
  });

  it("asks for a token when there is none and no unauthorized role, and lets the admin secret win", async () => {
    expect((await service.graphql("{ probe { role } }")).body).toEqual(
      requestError("invalid-headers", "Missing 'Authorization' or 'Cookie' header in JWT authentication mode"),
    );
    const admin = await service.graphql("{ probe(order_by: {role: asc}) { role } }", {
      "x-hasura-admin-secret": SERVICE_ADMIN_SECRET,
      ...bearer(await hs(claims("someone-else"))),
    });
    expect(admin.body).toEqual({ data: { probe: ROLES.map((role) => ({ role })).sort((a, b) => a.role.localeCompare(b.role)) } });
  });
});

describe("secrets reading a cookie, a custom header and the Authorization header", () => {
  const secrets = JSON.stringify([
    { type: "HS256", key: HS_SECRET, issuer: "cookie-issuer", header: { type: "Cookie", name: "jwt" } },
    { type: "HS256", key: OTHER_HS_SECRET, header: { type: "CustomHeader", name: "X-Api-Token" } },
    { type: "HS256", key: HS_SECRET, issuer: "bearer-issuer" },
  ]);
  let service: HttpService;
  let withAnonymous: HttpService;
  beforeAll(async () => {
    service = await openHttpService(database.db, { HASURA_GRAPHQL_JWT_SECRETS: secrets });
    withAnonymous = await openHttpService(database.db, {
      HASURA_GRAPHQL_JWT_SECRETS: secrets,
      HASURA_GRAPHQL_UNAUTHORIZED_ROLE: "anonymous",
    });
  });
  afterAll(async () => {
    await service?.close();
    await withAnonymous?.close();
  });

  it("reads each secret's token where that secret looks for it", async () => {
    const cookieToken = await hs(claims("cookie-issuer", { "x-hasura-default-role": "editor" }));
    expect(await service.role({ cookie: `theme=dark; jwt=${cookieToken}; lang=en` })).toBe("editor");
    expect(await service.role({ "x-api-token": await hs(claims("any-issuer"), OTHER_HS_SECRET) })).toBe("user");
    expect(await service.role(bearer(await hs(claims("bearer-issuer"))))).toBe("user");
  });

  it("does not look for a secret's token anywhere else", async () => {
    // Only the bearer-issuer secret reads Authorization, so a cookie-issuer token there names no secret.
    expect((await service.graphql("{ probe { role } }", bearer(await hs(claims("cookie-issuer"))))).body).toEqual(
      requestError("invalid-jwt", "Could not verify JWT: JWTNotInIssuer"),
    );
    expect((await service.graphql("{ probe { role } }", { cookie: "jwt_other=x; theme=dark" })).body).toEqual(
      requestError("invalid-headers", "Missing 'Authorization' or 'Cookie' header in JWT authentication mode"),
    );
  });

  it("refuses two tokens that both match", async () => {
    const headers = { cookie: `jwt=${await hs(claims("cookie-issuer"))}`, "x-api-token": await hs(claims(), OTHER_HS_SECRET) };
    expect((await service.graphql("{ probe { role } }", headers)).body).toEqual(
      requestError("invalid-headers", "Could not verify JWT: Multiple JWTs found"),
    );
  });

  it("rejects a malformed Authorization header and an empty custom header", async () => {
    expect((await service.graphql("{ probe { role } }", { authorization: "Basic dXNlcjpwYXNz" })).body).toEqual(
      requestError("invalid-headers", "Malformed Authorization header"),
    );
    const empty = (await service.graphql("{ probe { role } }", { "x-api-token": "" })).body as ReturnType<typeof requestError>;
    expect(empty.errors[0]?.extensions.code).toBe("invalid-jwt");
  });

  it("gives the unauthorized role only when no secret finds a token", async () => {
    expect(await withAnonymous.role({})).toBe("anonymous");
    expect(await withAnonymous.role({ cookie: "theme=dark" })).toBe("anonymous");
    expect((await withAnonymous.graphql("{ probe { role } }", { cookie: `jwt=${await hs(claims("elsewhere"))}` })).body).toEqual(
      requestError("invalid-jwt", "Could not verify JWT: JWTNotInIssuer"),
    );
  });
});

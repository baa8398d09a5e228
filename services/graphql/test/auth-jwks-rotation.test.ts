/**
 * Key rotation end to end: a real JWKS server (node:http) switches from key A to key B while
 * the service answers /v1/graphql. engine/auth/jwks.ts keeps the fetched set until the
 * response's Cache-Control max-age runs out (Hasura's determineJwkExpiryLifetime in
 * server/src-lib/Hasura/Server/Auth/JWT.hs), and also fetches again for a key id it does not
 * know, at most once per cooldown. A test clock drives both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasuraClaims, NAMESPACE, type Signer, sign, signer } from "./support/auth.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { createProbeTables, type HttpService, openHttpService, requestError } from "./support/http-service.js";
import { type LocalServer, sendJson, startLocalServer } from "./support/local-http.js";

const COOLDOWN_MS = 5_000;
const MAX_AGE_S = 60;

describe("JWKS rotation through /v1/graphql", () => {
  let database: TestDatabase;
  let server: LocalServer;
  let service: HttpService;
  let keyA: Signer;
  let keyB: Signer;
  let published: Signer[];
  let clock = Date.parse("2025-01-01T00:00:00Z");
  const fetches = () => server.requests.filter((r) => r.url === "/.well-known/jwks.json").length;
  const token = (s: Signer, role = "user") =>
    sign({ iss: "https://auth.test", [NAMESPACE]: hasuraClaims({ "x-hasura-default-role": role }) }, s.privateKey, "RS256", { kid: s.kid });
  const roleWith = async (s: Signer) => service.role({ authorization: `Bearer ${await token(s)}` });
  const noUsableKeys = requestError("invalid-jwt", "Could not verify JWT: JWSError NoUsableKeys");

  beforeAll(async () => {
    [keyA, keyB] = await Promise.all([signer("key-a"), signer("key-b")]);
    published = [keyA];
    server = await startLocalServer((req, res) => {
      if (req.url !== "/.well-known/jwks.json") return sendJson(res, 404, {});
      sendJson(res, 200, { keys: published.map((s) => s.jwk) }, { "cache-control": `public, max-age=${MAX_AGE_S}` });
    });
    database = await openTestDatabase("pglite");
    const secrets = [{ jwk_url: `${server.url}/.well-known/jwks.json`, issuer: "https://auth.test" }];
    service = await openHttpService(
      database.db,
      { HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify(secrets) },
      { now: () => clock, unknownKidCooldownMs: COOLDOWN_MS },
    );
    await createProbeTables(service, ["user", "editor"], []);
  });
  afterAll(async () => {
    await service?.close();
    await server?.close();
    await database?.dispose();
  });

  it("fetches the key set on first use and keeps it for max-age", async () => {
    expect(await roleWith(keyA)).toBe("user");
    clock += 1_000;
    expect(await roleWith(keyA)).toBe("user");
    expect(fetches()).toBe(1);
  });

  it("accepts key B, published under a new kid, once the cooldown since the last fetch is over", async () => {
    published = [keyB];
    // Soon after a fetch an unknown kid does not send another request: the JWKS server is not flooded.
    clock += 1_000;
    expect(await service.graphql("{ probe { role } }", { authorization: `Bearer ${await token(keyB)}` })).toEqual({
      status: 200,
      body: noUsableKeys,
    });
    expect(fetches()).toBe(1);
    // Key A is still trusted while the cached set is fresh: a removed key lasts until max-age.
    expect(await roleWith(keyA)).toBe("user");
    clock += COOLDOWN_MS;
    expect(await roleWith(keyB)).toBe("user");
    expect(fetches()).toBe(2);
  });

  it("rejects key A once the fetched set no longer has it", async () => {
    expect(await service.graphql("{ probe { role } }", { authorization: `Bearer ${await token(keyA)}` })).toEqual({
      status: 200,
      body: noUsableKeys,
    });
    expect(fetches()).toBe(2);
    clock += COOLDOWN_MS;
    // Past the cooldown an unknown kid fetches again, and A is still not there.
    expect((await service.graphql("{ probe { role } }", { authorization: `Bearer ${await token(keyA)}` })).body).toEqual(noUsableKeys);
    expect(fetches()).toBe(3);
    expect(await roleWith(keyB)).toBe("user");
    expect(fetches()).toBe(3);
  });

  it("fetches again when max-age has run out, even for a known kid", async () => {
    clock += MAX_AGE_S * 1000;
    expect(await service.role({ authorization: `Bearer ${await token(keyB, "editor")}` })).toBe("editor");
    expect(fetches()).toBe(4);
  });
});

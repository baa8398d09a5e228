import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jwksExpiry } from "../src/engine/auth/jwks.js";
import { bearer, hasuraClaims, jwtAuth, NAMESPACE, rejects, type Signer, session, sign, signer } from "./support/auth.js";
import { type LocalServer, sendJson, startLocalServer } from "./support/local-http.js";

describe("JWT mode with jwk_url over a real HTTP server", () => {
  let server: LocalServer;
  let published: Signer[] = [];
  let cacheControl = "max-age=3600";
  let first: Signer;
  let second: Signer;
  const token = (s: Signer) => sign({ [NAMESPACE]: hasuraClaims() }, s.privateKey, "RS256", { kid: s.kid });
  const fetches = () => server.requests.filter((r) => r.url === "/jwks").length;

  beforeAll(async () => {
    [first, second] = await Promise.all([signer("k1"), signer("k2")]);
    published = [first];
    server = await startLocalServer((req, res) => {
      if (req.url === "/jwks") sendJson(res, 200, { keys: published.map((s) => s.jwk) }, { "cache-control": cacheControl });
      else if (req.url === "/broken") sendJson(res, 500, { error: "down" });
      else sendJson(res, 404, {});
    });
  });
  afterAll(() => server?.close());

  it("fetches the key set once and keeps it for max-age", async () => {
    const cfg = jwtAuth({ jwk_url: `${server.url}/jwks` });
    const before = fetches();
    expect((await session(bearer(await token(first)), cfg)).role).toBe("user");
    expect((await session(bearer(await token(first)), cfg)).role).toBe("user");
    expect(fetches() - before).toBe(1);
  });

  it("fetches again when a token names an unknown key id (rotation)", async () => {
    const cfg = jwtAuth({ jwk_url: `${server.url}/jwks` }, { jwks: { unknownKidCooldownMs: 0 } });
    published = [first];
    expect((await session(bearer(await token(first)), cfg)).role).toBe("user");
    published = [first, second];
    const before = fetches();
    expect((await session(bearer(await token(second)), cfg)).role).toBe("user");
    expect(fetches() - before).toBe(1);
  });

  it("does not fetch for unknown key ids more often than the cooldown allows", async () => {
    const cfg = jwtAuth({ jwk_url: `${server.url}/jwks` }, { jwks: { unknownKidCooldownMs: 60_000 } });
    published = [first];
    expect((await session(bearer(await token(first)), cfg)).role).toBe("user");
    const stranger = await signer("k9");
    const before = fetches();
    await rejects(session(bearer(await token(stranger)), cfg), "invalid-jwt", "Could not verify JWT: JWSError NoUsableKeys");
    await rejects(session(bearer(await token(stranger)), cfg), "invalid-jwt", "Could not verify JWT: JWSError NoUsableKeys");
    expect(fetches() - before).toBe(0);
  });

  it("fetches on every use when the response says no-cache", async () => {
    cacheControl = "no-cache";
    try {
      published = [first];
      const cfg = jwtAuth({ jwk_url: `${server.url}/jwks` });
      const before = fetches();
      await session(bearer(await token(first)), cfg);
      await session(bearer(await token(first)), cfg);
      expect(fetches() - before).toBe(2);
    } finally {
      cacheControl = "max-age=3600";
    }
  });

  it("answers unexpected when the key set cannot be fetched", async () => {
    const cfg = jwtAuth({ jwk_url: `${server.url}/broken` });
    await rejects(
      session(bearer(await token(first)), cfg),
      "unexpected",
      `Non-2xx response on fetching JWK from: ${server.url}/broken`,
      500,
    );
  });

  it("rejects a token signed by a key of the set but tampered with", async () => {
    const cfg = jwtAuth({ jwk_url: `${server.url}/jwks` });
    published = [first];
    const [h, , s] = (await token(first)).split(".");
    const [, p] = (await sign({ [NAMESPACE]: hasuraClaims({ "x-hasura-default-role": "editor" }) }, second.privateKey, "RS256")).split(".");
    await rejects(session(bearer(`${h}.${p}.${s}`), cfg), "invalid-jwt", "Could not verify JWT: JWSError JWSInvalidSignature");
  });
});

describe("JWKS expiry from response headers", () => {
  const now = Date.parse("2024-01-01T00:00:00Z");
  const expiry = (headers: Record<string, string>) => jwksExpiry(new Headers(headers), now);

  it("follows max-age, s-maxage, no-cache, no-store, must-revalidate and Expires", () => {
    expect(expiry({ "cache-control": "public, max-age=600" })).toBe(now + 600_000);
    expect(expiry({ "cache-control": "max-age=600, s-maxage=60" })).toBe(now + 60_000);
    expect(expiry({ "cache-control": "no-cache" })).toBe(now);
    expect(expiry({ "cache-control": "no-store, max-age=600" })).toBe(now);
    expect(expiry({ "cache-control": "must-revalidate, max-age=30" })).toBe(now + 30_000);
    expect(expiry({ expires: "Mon, 01 Jan 2024 01:00:00 GMT" })).toBe(now + 3_600_000);
    expect(expiry({})).toBeNull();
  });
});

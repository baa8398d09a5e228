import { base64url, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveSessionWithExpiry } from "../src/engine/auth/session.js";
import {
  bearer,
  HS_SECRET,
  hasuraClaims,
  hsKey,
  jwtAuth,
  type KeyPair,
  keyPair,
  NAMESPACE,
  rejects,
  secs,
  session,
  sign,
} from "./support/auth.js";

const HS = jwtAuth({ type: "HS256", key: HS_SECRET });

describe("JWT mode: verification", () => {
  let rsa: KeyPair;
  let ec: KeyPair;
  let ed: KeyPair;

  beforeAll(async () => {
    [rsa, ec, ed] = await Promise.all([keyPair("RS256"), keyPair("ES256"), keyPair("Ed25519")]);
  });

  it("accepts HS256 tokens signed with the raw secret", async () => {
    const token = await sign({ sub: "1", [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    expect(await session(bearer(token), HS)).toEqual({
      role: "user",
      variables: { "x-hasura-user-id": "42", "x-hasura-role": "user" },
      isAdmin: false,
      useBackendOnly: false,
    });
  });

  it("accepts RS256, ES256 and Ed25519 tokens against PEM public keys", async () => {
    const payload = { [NAMESPACE]: hasuraClaims() };
    const rs = jwtAuth({ type: "RS256", key: rsa.publicPem });
    expect((await session(bearer(await sign(payload, rsa.privateKey, "RS256")), rs)).role).toBe("user");
    const es = jwtAuth({ type: "ES256", key: ec.publicPem });
    expect((await session(bearer(await sign(payload, ec.privateKey, "ES256")), es)).role).toBe("user");
    const eddsa = jwtAuth({ type: "Ed25519", key: ed.publicPem });
    expect((await session(bearer(await sign(payload, ed.privateKey, "EdDSA")), eddsa)).role).toBe("user");
  });

  it("rejects a wrong signature, a tampered payload and a token signed by another key", async () => {
    const token = await sign({ [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    const [header, , signature] = token.split(".");
    const forged = base64url.encode(JSON.stringify({ [NAMESPACE]: hasuraClaims({ "x-hasura-default-role": "editor" }) }));
    await rejects(
      session(bearer(`${header}.${forged}.${signature}`), HS),
      "invalid-jwt",
      "Could not verify JWT: JWSError JWSInvalidSignature",
    );
    const other = await sign({ [NAMESPACE]: hasuraClaims() }, hsKey("another-secret-that-is-long-enough-too"), "HS256");
    await rejects(session(bearer(other), HS), "invalid-jwt", "Could not verify JWT: JWSError JWSInvalidSignature");
    const es = await sign({ [NAMESPACE]: hasuraClaims() }, ec.privateKey, "ES256");
    await rejects(
      session(bearer(es), jwtAuth({ type: "RS256", key: rsa.publicPem })),
      "invalid-jwt",
      "Could not verify JWT: JWSError JWSInvalidSignature",
    );
  });

  it("rejects `alg: none` tokens", async () => {
    const unsigned = new UnsecuredJWT({ [NAMESPACE]: hasuraClaims() }).encode();
    await rejects(session(bearer(unsigned), HS), "invalid-jwt", "Could not verify JWT: JWSError JWSNoSignatures");
    const rs = jwtAuth({ type: "RS256", key: rsa.publicPem });
    await rejects(session(bearer(unsigned), rs), "invalid-jwt", "Could not verify JWT: JWSError JWSNoSignatures");
  });

  it("rejects an HS256 token whose secret is the RS public key (algorithm confusion)", async () => {
    const rs = jwtAuth({ type: "RS256", key: rsa.publicPem });
    const confused = await sign({ [NAMESPACE]: hasuraClaims() }, new TextEncoder().encode(rsa.publicPem), "HS256");
    await rejects(session(bearer(confused), rs), "invalid-jwt", "Could not verify JWT: JWSError JWSInvalidSignature");
  });

  it("rejects expired and not-yet-valid tokens, within allowed_skew", async () => {
    const expired = await sign({ exp: secs(-60), [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    await rejects(session(bearer(expired), HS), "invalid-jwt", "Could not verify JWT: JWTExpired");
    const early = await sign({ nbf: secs(60), [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    await rejects(session(bearer(early), HS), "invalid-jwt", "Could not verify JWT: JWTNotYetValid");
    const lenient = jwtAuth({ type: "HS256", key: HS_SECRET, allowed_skew: 120 });
    expect((await session(bearer(expired), lenient)).role).toBe("user");
    expect((await session(bearer(early), lenient)).role).toBe("user");
  });

  it("checks aud and iss when configured, and only when the token carries them", async () => {
    const cfg = jwtAuth({ type: "HS256", key: HS_SECRET, audience: ["app", "authenticated"], issuer: "https://auth.example" });
    const token = (claims: Record<string, unknown>) => sign({ ...claims, [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    expect((await session(bearer(await token({ aud: "authenticated", iss: "https://auth.example" })), cfg)).role).toBe("user");
    expect((await session(bearer(await token({ aud: ["x", "app"] })), cfg)).role).toBe("user");
    expect((await session(bearer(await token({})), cfg)).role).toBe("user");
    await rejects(session(bearer(await token({ aud: "other" })), cfg), "invalid-jwt", "Could not verify JWT: JWTNotInAudience");
    await rejects(
      session(bearer(await token({ iss: "https://evil.example" })), cfg),
      "invalid-jwt",
      "Could not verify JWT: JWTNotInIssuer",
    );
  });

  it("rejects tokens that are not JWTs", async () => {
    await rejects(
      session(bearer("not-a-token"), HS),
      "invalid-jwt",
      "Could not verify JWT: JWSError (CompactDecodeError Invalid number of parts: expected 3 parts; got 1)",
    );
    const error = await rejects(session(bearer("a.b.c"), HS), "invalid-jwt", expect.any(String) as unknown as string);
    expect(error.message).toMatch(/^Could not verify JWT: JWSError/);
  });

  it("reports the token's exp as the session's end", async () => {
    const exp = secs(300);
    const token = await sign({ exp, [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    const resolved = await resolveSessionWithExpiry({ headers: bearer(token) }, HS);
    expect(resolved.expiresAt?.getTime()).toBe(exp * 1000);
  });
});

describe("JWT mode: where the token is", () => {
  it("reads a Cookie or a custom header when configured", async () => {
    const token = await sign({ [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    const cookie = jwtAuth({ type: "HS256", key: HS_SECRET, header: { type: "Cookie", name: "hasura_jwt" } });
    expect((await session({ cookie: `theme=dark; hasura_jwt=${token}; other=1` }, cookie)).role).toBe("user");
    await rejects(
      session({ cookie: "theme=dark", authorization: `Bearer ${token}` }, cookie),
      "invalid-headers",
      "Missing 'Authorization' or 'Cookie' header in JWT authentication mode",
    );
    const custom = jwtAuth({ type: "HS256", key: HS_SECRET, header: { type: "CustomHeader", name: "X-Auth-Token" } });
    expect((await session({ "x-auth-token": token }, custom)).role).toBe("user");
  });

  it("rejects a malformed Authorization header", async () => {
    await rejects(session({ authorization: "Basic dXNlcjpwYXNz" }, HS), "invalid-headers", "Malformed Authorization header");
    await rejects(session({ authorization: "Bearer" }, HS), "invalid-headers", "Malformed Authorization header");
  });
});

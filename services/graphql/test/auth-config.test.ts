import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AuthConfigError, createAuthConfig } from "../src/engine/auth/config.js";
import { encodeJsonPath, parseJsonPath, readJsonPath } from "../src/engine/auth/json-path.js";
import { parseJwtSecret } from "../src/engine/auth/jwt-config.js";
import { pgArrayLiteral } from "../src/engine/auth/session-vars.js";
import { HS_SECRET } from "./support/auth.js";

const problems = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected an AuthConfigError");
};
const jwt = (o: unknown): string[] => problems(() => parseJwtSecret(JSON.stringify(o)));

describe("HASURA_GRAPHQL_JWT_SECRET", () => {
  it("parses a minimal HS256 config with Hasura's defaults", () => {
    const cfg = parseJwtSecret(JSON.stringify({ type: "HS256", key: HS_SECRET }));
    expect(cfg).toMatchObject({
      type: "HS256",
      jwkUrl: null,
      claims: { kind: "namespace", namespace: "https://hasura.io/jwt/claims", format: "json" },
      audience: null,
      issuer: null,
      allowedSkew: 0,
      header: { type: "Authorization" },
    });
    expect(cfg.key?.type).toBe("secret");
  });

  it("reads PEM public keys (SPKI, PKCS#1) and X.509 certificates", () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const spki = publicKey.export({ type: "spki", format: "pem" }) as string;
    const pkcs1 = publicKey.export({ type: "pkcs1", format: "pem" }) as string;
    expect(parseJwtSecret(JSON.stringify({ type: "RS256", key: spki })).key?.asymmetricKeyType).toBe("rsa");
    expect(parseJwtSecret(JSON.stringify({ type: "RS512", key: pkcs1 })).key?.asymmetricKeyType).toBe("rsa");
    const cert = parseJwtSecret(JSON.stringify({ type: "RS256", key: CERTIFICATE }));
    expect(cert.key?.asymmetricKeyType).toBe("rsa");
    expect(jwt({ type: "ES256", key: spki })).toEqual([
      "HASURA_GRAPHQL_JWT_SECRET: Invalid JWK: the key is a rsa key, which cannot verify ES256 tokens",
    ]);
    expect(jwt({ type: "RS256", key: "not a pem" })[0]).toMatch(/^HASURA_GRAPHQL_JWT_SECRET: Invalid JWK: Could not decode PEM: /);
  });

  it("parses every option", () => {
    const cfg = parseJwtSecret(
      JSON.stringify({
        jwk_url: "https://auth.example/.well-known/jwks.json",
        claims_namespace_path: "$.hasura['claims']",
        claims_format: "stringified_json",
        audience: ["a", "b"],
        issuer: "https://auth.example",
        allowed_skew: 30,
        header: { type: "Cookie", name: "token" },
      }),
    );
    expect(cfg).toMatchObject({
      type: null,
      key: null,
      jwkUrl: "https://auth.example/.well-known/jwks.json",
      claims: { kind: "namespace_path", path: ["hasura", "claims"], format: "stringified_json" },
      audience: ["a", "b"],
      issuer: "https://auth.example",
      allowedSkew: 30,
      header: { type: "Cookie", name: "token" },
    });
    expect(
      parseJwtSecret(JSON.stringify({ type: "HS256", key: HS_SECRET, audience: "x", header: { type: "customheader", name: "X-T" } })),
    ).toMatchObject({
      audience: ["x"],
      header: { type: "CustomHeader", name: "X-T" },
    });
  });

  it("names every problem at once", () => {
    expect(jwt({})).toEqual(["HASURA_GRAPHQL_JWT_SECRET: key and jwk_url both cannot be empty"]);
    expect(
      jwt({
        type: "HS256",
        key: "short",
        claims_namespace: "a",
        claims_namespace_path: "$.b",
        allowed_skew: -1,
        header: { type: "Cookie" },
      }),
    ).toEqual([
      "HASURA_GRAPHQL_JWT_SECRET: Invalid JWK: Key size too small; should be atleast 32 characters",
      "HASURA_GRAPHQL_JWT_SECRET: claims_namespace and claims_namespace_path both cannot be set",
      "HASURA_GRAPHQL_JWT_SECRET: allowed_skew must be a non-negative number of seconds",
      'HASURA_GRAPHQL_JWT_SECRET: header: type Cookie needs a "name"',
    ]);
    expect(jwt({ type: "PS256", key: "k" })).toEqual(["HASURA_GRAPHQL_JWT_SECRET: Invalid JWK: Key type: PS256 is not supported"]);
    expect(jwt({ type: "HS256", key: HS_SECRET, jwk_url: "https://x" })).toEqual([
      "HASURA_GRAPHQL_JWT_SECRET: key, jwk_url both cannot be present",
    ]);
    expect(jwt({ type: "HS512", key: HS_SECRET })).toEqual([
      "HASURA_GRAPHQL_JWT_SECRET: Invalid JWK: Key size too small; should be atleast 64 characters",
    ]);
    expect(jwt({ type: "HS256", key: HS_SECRET, claims_map: { "x-hasura-default-role": { path: "$.role" } } })).toEqual([
      "HASURA_GRAPHQL_JWT_SECRET: claims_map: x-hasura-allowed-roles is expected but not found",
    ]);
    expect(problems(() => parseJwtSecret("{nope"))[0]).toMatch(/^HASURA_GRAPHQL_JWT_SECRET is not valid JSON/);
  });
});

describe("auth settings", () => {
  it("builds each mode", () => {
    expect(createAuthConfig({})).toEqual({ adminSecretHash: null, unauthorizedRole: null, jwt: null, webhook: null });
    const jwks = createAuthConfig({ adminSecret: "s", jwtSecret: JSON.stringify({ jwk_url: "http://127.0.0.1:1/jwks" }) });
    expect(jwks.jwt?.[0]?.jwks?.url).toBe("http://127.0.0.1:1/jwks");
    expect(createAuthConfig({ adminSecret: "s", authHook: "http://hook", authHookMode: "post" }).webhook).toEqual({
      url: "http://hook",
      mode: "POST",
      timeoutMs: 30_000,
    });
  });

  it("refuses Hasura's forbidden combinations", () => {
    const jwtSecret = JSON.stringify({ type: "HS256", key: HS_SECRET });
    expect(problems(() => createAuthConfig({ jwtSecret }))).toEqual([
      "Fatal Error : --jwt-secret (HASURA_GRAPHQL_JWT_SECRET) requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set",
    ]);
    expect(problems(() => createAuthConfig({ adminSecret: "s", jwtSecret, authHook: "http://hook" }))).toEqual([
      "Fatal Error: Both webhook and JWT mode cannot be enabled at the same time",
    ]);
    expect(
      problems(() => createAuthConfig({ adminSecret: "s", authHook: "http://hook", unauthorizedRole: "anon", authHookMode: "PUT" })),
    ).toEqual([
      "Fatal Error: --unauthorized-role (HASURA_GRAPHQL_UNAUTHORIZED_ROLE) requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set and is not allowed when --auth-hook (HASURA_GRAPHQL_AUTH_HOOK) is set",
      "HASURA_GRAPHQL_AUTH_HOOK_MODE must be GET or POST",
    ]);
    expect(problems(() => createAuthConfig({ unauthorizedRole: "anon" }))).toHaveLength(1);
  });
});

describe("JSON paths and array literals", () => {
  it("parses Hasura's path forms", () => {
    expect(parseJsonPath("$")).toEqual([]);
    expect(parseJsonPath("$.a.b-c[0]['d e'][\"f\"]")).toEqual(["a", "b-c", 0, "d e", "f"]);
    expect(parseJsonPath("hasura.claims")).toEqual(["hasura", "claims"]);
    expect(() => parseJsonPath("$.a b")).toThrow(/Accept letters, digits, underscore/);
    expect(encodeJsonPath(["a", "d e", 0])).toBe("$.a['d e'][0]");
    expect(readJsonPath({ a: [{ b: 1 }] }, ["a", 0, "b"])).toBe(1);
    expect(readJsonPath({ a: 1 }, ["a", "b"])).toBeUndefined();
  });

  it("writes Postgres array literals", () => {
    expect(pgArrayLiteral(["a", "b c", 'q"', "", null, "null", 1, true, ["x", "y"]])).toBe('{a,"b c","q\\"","",NULL,"null",1,true,{x,y}}');
  });
});

// A self-signed test certificate (CN=graphql-test, RSA 2048); only its public key is used.
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIDETCCAfmgAwIBAgIUZa15aIo4b6qAW0ahsJUKeLgE+zwwDQYJKoZIhvcNAQEL
BQAwFzEVMBMGA1UEAwwMZ3JhcGhxbC10ZXN0MCAXDTI2MTEyMjA0MjcwNFoYDzIx
MjYxMDI5MDQyNzA0WjAXMRUwEwYDVQQDDAxncmFwaHFsLXRlc3QwggEiMA0GCSqG
SIb3DQEBAQUAA4IBDwAwggEKAoIBAQCsshVe+QEXa5trLZP+dSygQNeFGoPG9QB8
OYEQx/ZagaVkhvXUT1SHDn4hIq1lZK0V/AhsgVcHlY0f8qhY4BEP/+n0wN0x/siC
eKLwcyACCT0mFTFZoGHew7NRZrdIZkY49FUWK0pij0GWsGMdX64EKvzvZ+1D5tMW
qj6RuscIm8P3Mwy49jHceqkh8zReVUelvvpnZxgycuC1isivpwRisXNmFONivwyk
+3ARk0O9xqHJ6pzv7CH642hzNwMVFWW0TCGTJc1C/0Qwlcfh/DeZqSWJHAizu2ej
Te7UKQmFAL2cYGzGXHC0PGgmcy7rXqPqg1lwCCRsHgevPFMcQ3IhAgMBAAGjUzBR
MB0GA1UdDgQWBBQOnN3uo0P9Y2fwwHlzFrMzDFJc3zAfBgNVHSMEGDAWgBQOnN3u
o0P9Y2fwwHlzFrMzDFJc3zAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUA
A4IBAQBZm+lSF7cp5v6cDMnznGiATRch7FZWqMMfVJkQF5wEqOvYoShi2XYBmJlg
TMJsegBwFZT0H2gM6zeou6WW96QrNsqzoRmy+PPa4CHvnrmotZScqvyia1O2Gw5i
rnaJsT8DeUFQjZihgTs+l55LkuRzwqrF+aub2f+McY+mRpx58OFd/1/dJTHPd974
hvt1GTXkJ3rriH0RdxvMciX9c4TpD15R8DcNrHwvBoz7e4VfM3v/42aNn9wV0Rjr
FyhHvo0VnHPF1hwSPRIAsxKwbeBzz0B1DzS5sOpqnLtQQLaxQPk762pTaKKA/Fuz
tYaQr6P2trzSR3LyVDN2zKQke+D5
-----END CERTIFICATE-----`;

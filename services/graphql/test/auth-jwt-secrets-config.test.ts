/**
 * HASURA_GRAPHQL_JWT_SECRETS as configuration: a JSON array of objects shaped as
 * HASURA_GRAPHQL_JWT_SECRET, used instead of it when both are set
 * (https://hasura.io/docs/latest/auth/authentication/multiple-jwt-secrets/); every problem is
 * named at start-up under the index of its entry.
 */
import { ConfigError } from "@platform/core";
import { describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { AuthConfigError, createAuthConfig } from "../src/engine/auth/config.js";
import { parseJwtSecrets } from "../src/engine/auth/jwt-config.js";
import { ADMIN_SECRET, bearer, HS_SECRET, hasuraClaims, hsKey, NAMESPACE, rejects, session, sign } from "./support/auth.js";

const problems = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof AuthConfigError || error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a configuration error");
};
const listProblems = (value: unknown) => problems(() => parseJwtSecrets(typeof value === "string" ? value : JSON.stringify(value)));

describe("HASURA_GRAPHQL_JWT_SECRETS parsing", () => {
  it("parses each entry as HASURA_GRAPHQL_JWT_SECRET, in order", () => {
    const configs = parseJwtSecrets(
      JSON.stringify([
        { jwk_url: "https://auth.example/.well-known/jwks.json", issuer: "myapp" },
        { type: "HS256", key: HS_SECRET, issuer: "test", header: { type: "Cookie", name: "jwt" } },
      ]),
    );
    expect(configs).toHaveLength(2);
    expect(configs[0]).toMatchObject({ type: null, jwkUrl: "https://auth.example/.well-known/jwks.json", issuer: "myapp" });
    expect(configs[1]).toMatchObject({ type: "HS256", jwkUrl: null, issuer: "test", header: { type: "Cookie", name: "jwt" } });
  });

  it("names every problem of every entry under its index", () => {
    expect(
      listProblems([
        { type: "HS256", key: "short" },
        { type: "HS256", key: HS_SECRET },
        { jwk_url: "ftp://keys.example/jwks", audience: 5 },
        "not an object",
      ]),
    ).toEqual([
      "HASURA_GRAPHQL_JWT_SECRETS[0]: Invalid JWK: Key size too small; should be atleast 32 characters",
      "HASURA_GRAPHQL_JWT_SECRETS[2]: jwk_url must be an http(s) URL",
      "HASURA_GRAPHQL_JWT_SECRETS[2]: audience must be a string or a list of strings",
      "HASURA_GRAPHQL_JWT_SECRETS[3] must be a JSON object",
    ]);
  });

  it("wants a JSON array", () => {
    expect(listProblems({ type: "HS256", key: HS_SECRET })).toEqual([
      "HASURA_GRAPHQL_JWT_SECRETS must be a JSON array of JWT secret objects",
    ]);
    expect(listProblems("[{")).toEqual([expect.stringMatching(/^HASURA_GRAPHQL_JWT_SECRETS is not valid JSON: /)]);
  });

  it("reports the list's problems with the other settings' at start-up", () => {
    const found = problems(() =>
      readGraphqlConfig({
        HASURA_GRAPHQL_SERVER_PORT: "not-a-port",
        HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify([{ type: "HS256", key: HS_SECRET }, {}]),
      }),
    );
    expect(found).toEqual([
      expect.stringContaining("HASURA_GRAPHQL_SERVER_PORT"),
      "Fatal Error : HASURA_GRAPHQL_JWT_SECRETS requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set",
      "HASURA_GRAPHQL_JWT_SECRETS[1]: key and jwk_url both cannot be empty",
    ]);
  });
});

describe("HASURA_GRAPHQL_JWT_SECRETS beside HASURA_GRAPHQL_JWT_SECRET", () => {
  const OTHER = "a-second-hmac-secret-that-is-long-enough!!";
  const token = (key: string) => sign({ [NAMESPACE]: hasuraClaims() }, hsKey(key), "HS256");

  it("uses the list when both are set", async () => {
    const config = createAuthConfig({
      adminSecret: ADMIN_SECRET,
      jwtSecret: JSON.stringify({ type: "HS256", key: HS_SECRET }),
      jwtSecrets: JSON.stringify([{ type: "HS256", key: OTHER }]),
    });
    expect(config.jwt).toHaveLength(1);
    expect((await session(bearer(await token(OTHER)), config)).role).toBe("user");
    await rejects(session(bearer(await token(HS_SECRET)), config), "invalid-jwt", "Could not verify JWT: JWSError JWSInvalidSignature");
  });

  it("uses the single secret when the list is empty, and no JWT mode when there is none", async () => {
    const single = createAuthConfig({
      adminSecret: ADMIN_SECRET,
      jwtSecret: JSON.stringify({ type: "HS256", key: HS_SECRET }),
      jwtSecrets: "[]",
    });
    expect((await session(bearer(await token(HS_SECRET)), single)).role).toBe("user");
    expect(createAuthConfig({ adminSecret: ADMIN_SECRET, jwtSecrets: " [ ] " }).jwt).toBeNull();
  });

  it("names the single secret's variable when only it is wrong", () => {
    expect(problems(() => createAuthConfig({ jwtSecret: "{}", jwtSecrets: "[]" }))).toEqual([
      "Fatal Error : --jwt-secret (HASURA_GRAPHQL_JWT_SECRET) requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set",
      "HASURA_GRAPHQL_JWT_SECRET: key and jwk_url both cannot be empty",
    ]);
  });

  it("shares one key-set cache among entries naming the same jwk_url", () => {
    const url = "https://auth.example/.well-known/jwks.json";
    const config = createAuthConfig({
      adminSecret: ADMIN_SECRET,
      jwtSecrets: JSON.stringify([
        { jwk_url: url, issuer: "a" },
        { jwk_url: url, issuer: "b", header: { type: "Cookie", name: "t" } },
        { jwk_url: `${url}?v=2`, issuer: "c" },
      ]),
    });
    const [a, b, c] = config.jwt ?? [];
    expect(a?.jwks).not.toBeNull();
    expect(a?.jwks).toBe(b?.jwks);
    expect(c?.jwks).not.toBe(a?.jwks);
  });
});

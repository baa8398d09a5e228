/**
 * npm start's local values: secrets kept per data directory, the environment always winning
 * (and never printed), settings filled only where unset, and the GraphQL engine wired to trust
 * both kinds of tokens.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt, jwtVerify } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { localEnv } from "../local/env.js";
import { planStart } from "../local/plan.js";
import { API_KEY_ISSUER, printable, resolveLocalSecrets, secretsFile } from "../local/secrets.js";
import { buildSummary, summaryLines } from "../local/summary.js";

const root = mkdtempSync(join(tmpdir(), "platform-local-"));
let count = 0;
const freshDir = () => join(root, `data-${++count}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PORTS = { gateway: 54321, auth: 8081, graphql: 8080, catalog: 5634, metagame: 4000 };

describe("local secrets", () => {
  it("are generated once per data directory, kept with mode 0600, and the same on the next start", async () => {
    const dir = freshDir();
    const first = await resolveLocalSecrets({}, dir);
    expect(first.jwtSecret.source).toBe("generated");
    expect(first.jwtSecret.value.length).toBeGreaterThanOrEqual(32);
    expect(statSync(secretsFile(dir)).mode & 0o777).toBe(0o600);
    const second = await resolveLocalSecrets({}, dir);
    expect(second.jwtSecret).toEqual({ value: first.jwtSecret.value, source: "stored" });
    expect(second.anonKey.value).toBe(first.anonKey.value);
    expect(second.serviceRoleKey.value).toBe(first.serviceRoleKey.value);
    expect(second.publishableKey?.value).toMatch(/^sb_publishable_/);
    expect(second.secretKey?.value).toMatch(/^sb_secret_/);
    expect(second.graphqlAdminSecret.value).toBe(first.graphqlAdminSecret.value);
    expect(second.metagameCronSecret).toEqual({ value: first.metagameCronSecret.value, source: "stored" });
  });

  it("mints Supabase-style API keys: HS256 with the secret, role anon / service_role, Hasura claims for the engine", async () => {
    const secrets = await resolveLocalSecrets({}, freshDir());
    const key = new TextEncoder().encode(secrets.jwtSecret.value);
    const anon = (await jwtVerify(secrets.anonKey.value, key)).payload;
    expect(anon).toMatchObject({ iss: API_KEY_ISSUER, role: "anon" });
    expect(anon["https://hasura.io/jwt/claims"]).toEqual({ "x-hasura-default-role": "anon", "x-hasura-allowed-roles": ["anon"] });
    const service = (await jwtVerify(secrets.serviceRoleKey.value, key)).payload;
    expect(service).toMatchObject({ iss: API_KEY_ISSUER, role: "service_role" });
    expect(service["https://hasura.io/jwt/claims"]).toEqual({ "x-hasura-default-role": "admin", "x-hasura-allowed-roles": ["admin"] });
    expect((service.exp ?? 0) - (service.iat ?? 0)).toBeGreaterThan(9 * 365 * 24 * 3600);
  });

  it("take values from the environment first, and never store or print them", async () => {
    const dir = freshDir();
    const secret = "s".repeat(40);
    const secrets = await resolveLocalSecrets(
      { AUTH_JWT_SECRET: secret, HASURA_GRAPHQL_ADMIN_SECRET: "mine", METAGAME_CRON_SECRET: "cron-mine" },
      dir,
    );
    expect(secrets.metagameCronSecret).toEqual({ value: "cron-mine", source: "environment" });
    expect(secrets.jwtSecret).toEqual({ value: secret, source: "environment" });
    expect(secrets.graphqlAdminSecret).toEqual({ value: "mine", source: "environment" });
    // Keys signed with someone else's secret are made for this start only.
    expect(secrets.anonKey.source).toBe("derived");
    expect(decodeJwt(secrets.anonKey.value).role).toBe("anon");
    expect(secrets.publishableKey).toBeNull();
    expect(secrets.secretKey).toBeNull();
    // Nothing of ours to keep: no file at all.
    expect(existsSync(secretsFile(dir))).toBe(false);
    await resolveLocalSecrets({ AUTH_JWT_SECRET: secret }, dir);
    const stored = readFileSync(secretsFile(dir), "utf8");
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain("mine");
    expect(stored).not.toContain("cron-mine");
    expect(stored).not.toContain(secrets.anonKey.value);
    for (const value of [secrets.jwtSecret, secrets.anonKey, secrets.serviceRoleKey, secrets.graphqlAdminSecret])
      expect(printable(value)).toBe(false);
    const summary = buildSummary({
      gateway: "http://localhost:54321",
      auth: "http://127.0.0.1:8081",
      graphql: "http://127.0.0.1:8080",
      catalog: "http://127.0.0.1:5634",
      backend: "http://127.0.0.1:4000",
      graphqlAuth: "webhook",
      secrets,
      autoconfirm: true,
      mailCatcher: true,
      dataDir: dir,
      sharedDatabase: join(dir, "postgres"),
      catalogDatabase: join(dir, "catalog.db"),
      cwd: root,
    });
    const text = summaryLines(summary, 1).join("\n");
    for (const value of [secret, "mine", secrets.anonKey.value, secrets.serviceRoleKey.value]) expect(text).not.toContain(value);
    expect(text).toContain("AUTH_JWT_SECRET is set in the environment (not shown)");
    expect(text).toContain("ANON_KEY is derived from a secret set in the environment (not shown)");
  });

  it("refuse a damaged secrets file with a message saying what to do", async () => {
    const dir = freshDir();
    await resolveLocalSecrets({}, dir);
    writeFileSync(secretsFile(dir), "{not json");
    await expect(resolveLocalSecrets({}, dir)).rejects.toThrow(/delete it to generate new keys/);
  });
});

describe("local settings", () => {
  it("fill only what is unset, by any of its names", async () => {
    const secrets = await resolveLocalSecrets({}, freshDir());
    const { env, filled } = localEnv(
      { GOTRUE_SITE_URL: "https://mine.example", AUTH_MAILER_AUTOCONFIRM: "false" },
      secrets,
      "/tmp/d",
      PORTS,
    );
    expect(env.AUTH_SITE_URL).toBeUndefined();
    expect(env.AUTH_MAILER_AUTOCONFIRM).toBe("false");
    expect(filled).not.toContain("AUTH_SITE_URL");
    expect(filled).not.toContain("AUTH_MAILER_AUTOCONFIRM");
    expect(env.AUTH_API_EXTERNAL_URL).toBe("http://localhost:54321/auth/v1");
    expect(env.AUTH_JWT_SECRET).toBe(secrets.jwtSecret.value);
    // The secret alone would mean HS256; npm start's wiring wants RS256 sessions (JWKS).
    expect(env.AUTH_JWT_ALGORITHM).toBe("RS256");
    expect(filled).toContain("AUTH_JWT_ALGORITHM");
    const own = localEnv({ GOTRUE_JWT_ALGORITHM: "ES256", AUTH_JWT_SECRET: "s".repeat(32) }, secrets, "/tmp/d", PORTS);
    expect(own.env.AUTH_JWT_ALGORITHM).toBeUndefined();
    expect(own.filled).not.toContain("AUTH_JWT_ALGORITHM");
    expect(env.ENDPOINT_CATALOG_DB).toBe("sqlite:////tmp/d/catalog.db");
    expect(env.GATEWAY_HOST).toBe("127.0.0.1");
  });

  it("share one embedded database only when neither service has database settings of its own", async () => {
    const secrets = await resolveLocalSecrets({}, freshDir());
    expect(localEnv({}, secrets, "/tmp/d", PORTS).sharedDataDir).toBe("/tmp/d/postgres");
    const apart = localEnv({ DATABASE_URL: "postgres://x/db" }, secrets, "/tmp/d", PORTS);
    expect(apart.sharedDataDir).toBeNull();
    expect(apart.env.HASURA_GRAPHQL_DATA_DIR).toBe("/tmp/d/graphql");
  });

  it("serve the MetaGame project, authenticated by its backend's webhook, which verifies the auth service's tokens", async () => {
    const dir = freshDir();
    const plan = await planStart({ PLATFORM_DATA_DIR: dir, LOG_LEVEL: "silent" }, root);
    expect(plan.graphqlAuth).toBe("webhook");
    expect(plan.graphql.migrationsDir).toMatch(/projects\/metagame\/hasura\/migrations$/);
    expect(plan.graphql.metadataDir).toMatch(/projects\/metagame\/hasura\/metadata$/);
    expect(plan.graphql.booleanNullCollapse).toBe(true);
    expect(plan.graphql.environment.ACTION_BASE_ENDPOINT).toBe("http://127.0.0.1:4000/actions");
    expect(plan.graphql.environment.REMOTE_SCHEMA_ENDPOINT).toBe("http://127.0.0.1:4000/remote-schemas/graphql");
    expect(plan.graphql.environment.HASURA_GRAPHQL_AUTH_HOOK).toBe("http://127.0.0.1:4000/auth-webhook");
    // The cron triggers' header and the backend's check read the same secret.
    expect(plan.graphql.environment.METAGAME_CRON_SECRET).toBe(plan.secrets.metagameCronSecret.value);
    expect(plan.metagame.cronSecret).toBe(plan.secrets.metagameCronSecret.value);
    expect(plan.graphqlJwtSecrets).toBeNull();
    expect(plan.metagame).toMatchObject({
      host: "127.0.0.1",
      port: 4000,
      graphqlUrl: "http://127.0.0.1:8080/v1/graphql",
      adminSecret: plan.secrets.graphqlAdminSecret.value,
      authJwksUrl: "http://127.0.0.1:8081/.well-known/jwks.json",
      authJwtSecret: plan.secrets.jwtSecret.value,
    });
    expect(plan.graphql.auth.adminSecretHash).not.toBeNull();
  });

  it("in JWT mode, map the auth service's sessions to role player by claims_map and keep the API keys' own claims", async () => {
    const dir = freshDir();
    const plan = await planStart({ PLATFORM_DATA_DIR: dir, METAGAME_AUTH: "jwt" }, root);
    expect(plan.graphqlAuth).toBe("jwt");
    expect(plan.graphql.environment.HASURA_GRAPHQL_AUTH_HOOK).toBeUndefined();
    expect(plan.graphql.auth.unauthorizedRole).toBe("public");
    expect(plan.graphqlJwtSecrets).toEqual([
      {
        jwk_url: "http://127.0.0.1:8081/.well-known/jwks.json",
        issuer: "http://localhost:54321/auth/v1",
        claims_map: {
          "x-hasura-allowed-roles": ["player"],
          "x-hasura-default-role": "player",
          "x-hasura-user-id": { path: "$.sub" },
        },
      },
      { type: "HS256", key: plan.secrets.jwtSecret.value, issuer: API_KEY_ISSUER },
    ]);
    expect(plan.auth.jwt.algorithm).toBe("RS256");
    // A secret of the user's own still gets RS256 sessions (npm start asks for them).
    const ownSecret = await planStart({ PLATFORM_DATA_DIR: dir, METAGAME_AUTH: "jwt", AUTH_JWT_SECRET: "u".repeat(32) }, root);
    expect(ownSecret.graphqlJwtSecrets?.[0]).toMatchObject({ jwk_url: expect.any(String) });
    const hs256 = await planStart({ PLATFORM_DATA_DIR: dir, METAGAME_AUTH: "jwt", AUTH_JWT_ALGORITHM: "HS256" }, root);
    expect(hs256.graphqlJwtSecrets?.[0]).toMatchObject({ type: "HS256", key: plan.secrets.jwtSecret.value });
    await expect(planStart({ PLATFORM_DATA_DIR: dir, METAGAME_AUTH: "oauth" }, root)).rejects.toThrow(/METAGAME_AUTH/);
    const own = await planStart(
      { PLATFORM_DATA_DIR: dir, HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({ type: "HS256", key: "k".repeat(32) }) },
      root,
    );
    expect(own.graphqlAuth).toBe("own");
    expect(own.graphqlJwtSecrets).toBeNull();
    expect(own.graphql.environment.HASURA_GRAPHQL_AUTH_HOOK).toBeUndefined();
  });

  it("report every problem of every service at once", async () => {
    await expect(
      planStart(
        {
          PLATFORM_DATA_DIR: freshDir(),
          CATALOG_PORT: "x",
          AUTH_JWT_EXP: "soon",
          HASURA_GRAPHQL_PG_CONNECTIONS: "many",
          GATEWAY_AUTH_URL: "ftp://x",
        },
        root,
      ),
    ).rejects.toThrow(/CATALOG_PORT[\s\S]*AUTH_JWT_EXP[\s\S]*HASURA_GRAPHQL_PG_CONNECTIONS[\s\S]*GATEWAY_AUTH_URL/);
  });
});

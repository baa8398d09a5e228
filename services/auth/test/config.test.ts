/** Reading the auth configuration: names, aliases, defaults and one error naming every problem. */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadEnv } from "@platform/core";
import { describe, expect, it } from "vitest";
import { parseDuration, parseRequiredCharacters } from "../src/config/values.js";
import { readAuthConfig } from "../src/config.js";

const REQUIRED = {
  AUTH_SITE_URL: "http://localhost:3000",
  AUTH_API_EXTERNAL_URL: "http://localhost:8081",
  AUTH_DB_DRIVER: "postgres",
  AUTH_JWT_SECRET: "0123456789abcdef0123456789abcdef",
};

function problems(env: Record<string, string>): string[] {
  try {
    readAuthConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("auth configuration", () => {
  it("starts with an SMS provider whose credentials are empty, and carries which are missing (as GoTrue)", () => {
    // As supabase/auth-js's infra/docker-compose.yml has them.
    const sms = readAuthConfig({
      ...REQUIRED,
      GOTRUE_SMS_PROVIDER: "twilio",
      GOTRUE_SMS_TWILIO_ACCOUNT_SID: "",
      GOTRUE_SMS_TWILIO_AUTH_TOKEN: "",
      GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID: "sid",
    }).sms;
    expect(sms).toMatchObject({
      provider: "twilio",
      credentials: { message_service_sid: "sid" },
      missingCredentials: ["AUTH_SMS_TWILIO_ACCOUNT_SID", "AUTH_SMS_TWILIO_AUTH_TOKEN"],
    });
    expect(
      readAuthConfig({
        ...REQUIRED,
        AUTH_SMS_PROVIDER: "vonage",
        AUTH_SMS_VONAGE_API_KEY: "k",
        AUTH_SMS_VONAGE_API_SECRET: "s",
        AUTH_SMS_VONAGE_FROM: "f",
      }).sms.missingCredentials,
    ).toEqual([]);
    expect(readAuthConfig(REQUIRED).sms).toMatchObject({ provider: undefined, missingCredentials: [] });
  });

  it("reads DB_NAMESPACE as the schema of the tables, auth by default", () => {
    expect(readAuthConfig(REQUIRED).database.schema).toBe("auth");
    expect(readAuthConfig({ ...REQUIRED, DB_NAMESPACE: "tenant_2" }).database.schema).toBe("tenant_2");
    expect(readAuthConfig({ ...REQUIRED, GOTRUE_DB_NAMESPACE: "_x" }).database.schema).toBe("_x");
    for (const bad of ["auth.users", "2fa", "a b", 'x"y', "a".repeat(64)]) {
      expect(problems({ ...REQUIRED, AUTH_DB_NAMESPACE: bad })).toHaveLength(1);
    }
  });

  it("signs HS256 with the secret alone, RS256 with nothing, and an explicit algorithm wins", () => {
    const jwt = (env: Record<string, string>) => readAuthConfig({ ...REQUIRED, ...env }).jwt;
    expect(jwt({})).toMatchObject({ algorithm: "HS256", secret: REQUIRED.AUTH_JWT_SECRET });
    expect(jwt({ AUTH_JWT_SECRET: "" })).toMatchObject({ algorithm: "RS256", secret: undefined });
    expect(jwt({ AUTH_JWT_ALGORITHM: "RS256" }).algorithm).toBe("RS256");
    expect(jwt({ GOTRUE_JWT_ALGORITHM: "ES256" }).algorithm).toBe("ES256");
    expect(jwt({ AUTH_JWT_SECRET: "", AUTH_JWT_ALGORITHM: "EdDSA" }).algorithm).toBe("EdDSA");
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const keys = JSON.stringify([{ ...privateKey.export({ format: "jwk" }), kid: "ec", key_ops: ["sign", "verify"] }]);
    expect(jwt({ AUTH_JWT_KEYS: keys, AUTH_JWT_ALGORITHM: "RS256" }).algorithm).toBe("ES256");
    expect(problems({ ...REQUIRED, AUTH_JWT_SECRET: "", AUTH_JWT_ALGORITHM: "HS256" })).toEqual([
      "AUTH_JWT_SECRET is required when AUTH_JWT_ALGORITHM is HS256",
    ]);
    expect(problems({ ...REQUIRED, AUTH_JWT_ALGORITHM: "HS512" })).toEqual([
      'AUTH_JWT_ALGORITHM: must be one of RS256, ES256, EdDSA, HS256, got "HS512"',
    ]);
  });

  it("applies the documented defaults", () => {
    const config = readAuthConfig(REQUIRED);
    expect(config.api).toMatchObject({ port: 8081, host: "0.0.0.0", externalUrl: "http://localhost:8081" });
    expect(config.jwt).toMatchObject({
      exp: 3600,
      aud: "authenticated",
      adminGroupName: "admin",
      defaultGroupName: "authenticated",
      algorithm: "HS256",
    });
    expect(config.jwt.adminRoles).toEqual(["service_role", "supabase_admin"]);
    expect(config.jwt.issuer).toBe("http://localhost:8081");
    expect(config.security).toMatchObject({
      passwordMinLength: 6,
      passwordHashCost: 10,
      refreshTokenRotationEnabled: true,
      refreshTokenReuseIntervalMs: 10_000,
      updatePasswordRequireReauthentication: false,
    });
    expect(config.database).toMatchObject({ driver: "postgres", url: undefined, dataDir: "./data/auth", maxPoolSize: 0, schema: "auth" });
    expect(config.external).toMatchObject({ email: true, phone: false, anonymousUsers: false });
    expect(config.smtp.maxFrequencyMs).toBe(900_000);
    expect(config.sms).toMatchObject({ maxFrequencyMs: 60_000, autoconfirm: false });
    expect(config.mailer).toMatchObject({ autoconfirm: false, urlPaths: { invite: "/verify", confirmation: "/verify" } });
    expect(config.mailer.subjects.CONFIRMATION).toBe("Confirm Your Signup");
    expect(config.log).toEqual({ level: "info", file: undefined, format: "auto" });
    expect(config.telemetry).toMatchObject({ prometheusHost: "0.0.0.0", prometheusPort: 9100 });
    expect(config.rateLimit).toMatchObject({ tokenRefresh: 150, header: undefined, redisUrl: undefined });
  });

  it("reads GOTRUE_ names as aliases, prefers AUTH_, and takes PORT, DATABASE_URL and LOG_LEVEL unprefixed", () => {
    const config = readAuthConfig({
      GOTRUE_SITE_URL: "https://site.example",
      GOTRUE_API_EXTERNAL_URL: "https://auth.example/",
      GOTRUE_DB_DRIVER: "postgres",
      GOTRUE_JWT_SECRET: "ignored-because-auth-wins-0123456789",
      AUTH_JWT_SECRET: "the-auth-prefixed-secret-wins-0123456789",
      PORT: "9999",
      DATABASE_URL: "postgres://db.example/auth",
      LOG_LEVEL: "panic",
      GOTRUE_DB_MAX_POOL_SIZE: "7",
      GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "3",
    });
    expect(config.siteUrl).toBe("https://site.example");
    expect(config.api.externalUrl).toBe("https://auth.example");
    expect(config.jwt.secret).toBe("the-auth-prefixed-secret-wins-0123456789");
    expect(config.api.port).toBe(9999);
    expect(config.database).toMatchObject({ url: "postgres://db.example/auth", maxPoolSize: 7 });
    expect(config.log.level).toBe("fatal");
    expect(config.security.refreshTokenReuseIntervalMs).toBe(3000);
  });

  it("names every problem in one ConfigError", () => {
    expect(problems({})).toEqual([
      "AUTH_SITE_URL: is required",
      "AUTH_API_EXTERNAL_URL: is required",
      "AUTH_DB_DRIVER: is required (the only supported value is postgres)",
    ]);
    const found = problems({
      ...REQUIRED,
      AUTH_DB_DRIVER: "mysql",
      AUTH_JWT_SECRET: "short",
      AUTH_JWT_EXP: "soon",
      AUTH_PASSWORD_MIN_LENGTH: "4",
      DATABASE_URL: "mysql://x",
      AUTH_DB_NAMESPACE: "Bad-Name",
      AUTH_SITE_URL: "ftp://site",
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_SMS_PROVIDER: "carrier-pigeon",
      AUTH_SECURITY_CAPTCHA_ENABLED: "yes",
      AUTH_SMTP_ADMIN_EMAIL: "not-an-email",
      AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "ten",
      AUTH_JWT_KEYS: "[{}]",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'AUTH_SITE_URL: must be an http or https URL, got "ftp://site"',
        "AUTH_PASSWORD_MIN_LENGTH must be at least 6, got 4",
        'AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: must be a number of seconds or a duration such as 10s or 1h30m, got "ten"',
        'AUTH_DB_DRIVER: must be postgres, got "mysql"',
        "DATABASE_URL: must be a postgres:// or postgresql:// URL",
        'AUTH_DB_NAMESPACE: must be a lower-case identifier (a-z, 0-9, _; at most 63 characters), got "Bad-Name"',
        "AUTH_JWT_SECRET: must be at least 32 characters long",
        'AUTH_JWT_EXP must be an integer, got "soon"',
        'AUTH_JWT_KEYS: key 1 needs a "kid"',
        'AUTH_SMTP_ADMIN_EMAIL: must be an email address, got "not-an-email"',
        'AUTH_SMS_PROVIDER: must be one of twilio, twilio_verify, messagebird, textlocal, vonage, got "carrier-pigeon"',
        "AUTH_SECURITY_CAPTCHA_SECRET is required when AUTH_SECURITY_CAPTCHA_ENABLED is true",
        'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
      ]),
    );
    expect(found.some((problem) => problem.startsWith("OTEL_EXPORTER_OTLP_ENDPOINT"))).toBe(true);
    expect(found).toHaveLength(14);
  });

  it("reads a provider's client id list and flags, and refuses a test issuer in production or where the issuer is not fixed", () => {
    const google = {
      ...REQUIRED,
      AUTH_EXTERNAL_GOOGLE_ENABLED: "true",
      AUTH_EXTERNAL_GOOGLE_CLIENT_ID: "web, ios ,android",
      AUTH_EXTERNAL_GOOGLE_SECRET: "s",
      AUTH_EXTERNAL_GOOGLE_REDIRECT_URI: "https://auth.example/callback",
      AUTH_EXTERNAL_GOOGLE_EMAIL_OPTIONAL: "true",
      AUTH_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK: "true",
    };
    expect(readAuthConfig(google).external.providers.google).toMatchObject({
      clientId: "web",
      clientIds: ["web", "ios", "android"],
      emailOptional: true,
      skipNonceCheck: true,
    });
    const testIssuer = { ...google, AUTH_EXTERNAL_GOOGLE_TEST_ISSUER: "http://127.0.0.1:9000" };
    expect(readAuthConfig(testIssuer).external.providers.google.testIssuer).toBe("http://127.0.0.1:9000");
    expect(problems({ ...testIssuer, NODE_ENV: "production" })).toEqual([
      "AUTH_EXTERNAL_GOOGLE_TEST_ISSUER: is for tests only and refused when NODE_ENV is production",
    ]);
    expect(problems({ ...REQUIRED, AUTH_EXTERNAL_GITHUB_TEST_ISSUER: "http://127.0.0.1:9000" })).toEqual([
      "AUTH_EXTERNAL_GITHUB_TEST_ISSUER: is not a setting of github: its issuer is not fixed",
    ]);
    expect(readAuthConfig(REQUIRED).external).toMatchObject({
      allowedIdTokenIssuers: ["https://appleid.apple.com", "https://accounts.google.com"],
      allowUnverifiedEmailSignIns: false,
    });
    expect(readAuthConfig(REQUIRED).security.manualLinkingEnabled).toBe(false);
  });

  it("validates provider, SMS and JWT key settings", () => {
    // As GoTrue, an enabled provider without its settings does not stop start-up (it is refused
    // when used); what it lacks is kept for the start-up warning.
    const keycloak = {
      ...REQUIRED,
      AUTH_EXTERNAL_KEYCLOAK_ENABLED: "true",
      AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: "id",
      AUTH_EXTERNAL_KEYCLOAK_SECRET: "s",
      AUTH_EXTERNAL_KEYCLOAK_REDIRECT_URI: "https://auth.example/callback",
    };
    expect(problems(keycloak)).toEqual([]);
    expect(readAuthConfig(keycloak).external.providers.keycloak.missing).toEqual(["AUTH_EXTERNAL_KEYCLOAK_URL"]);
    expect(readAuthConfig({ ...REQUIRED, GOTRUE_EXTERNAL_GOOGLE_ENABLED: "true" }).external.providers.google.missing).toEqual([
      "AUTH_EXTERNAL_GOOGLE_CLIENT_ID",
      "AUTH_EXTERNAL_GOOGLE_SECRET",
      "AUTH_EXTERNAL_GOOGLE_REDIRECT_URI",
    ]);
    const verifyOnly = JSON.stringify([{ kty: "oct", k: "c2VjcmV0", kid: "a", key_ops: ["verify"] }]);
    expect(problems({ ...REQUIRED, AUTH_JWT_KEYS: verifyOnly })).toEqual([
      'AUTH_JWT_KEYS: exactly one key must have "sign" in its key_ops, found 0',
    ]);
    expect(problems({ ...REQUIRED, AUTH_JWT_KEYS: JSON.stringify([{ kty: "oct", k: "c2VjcmV0", kid: "a", alg: "RS256" }]) })).toEqual([
      "AUTH_JWT_KEYS: key 1 (a): a oct key cannot be used with RS256",
    ]);
    expect(problems({ ...REQUIRED, AUTH_JWT_KEYS: "not json" })).toEqual(["AUTH_JWT_KEYS: must be a JSON array of JWKs"]);
    expect(
      readAuthConfig({ ...REQUIRED, AUTH_JWT_KEYS: JSON.stringify([{ kty: "oct", k: "c2VjcmV0", kid: "a" }]) }).jwt.keys[0],
    ).toMatchObject({
      kid: "a",
      alg: "HS256",
    });
  });

  it("parses durations, required character sets and the .env file (the environment wins)", () => {
    expect(parseDuration("10")).toBe(10_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseRequiredCharacters("abc:123:\\:;")).toEqual(["abc", "123", ":;"]);
    const dir = mkdtempSync(join(tmpdir(), "auth-env-"));
    writeFileSync(join(dir, ".env"), "AUTH_SITE_URL=http://from-file\nAUTH_JWT_EXP=60\n");
    const env = loadEnv({ cwd: dir, env: { ...REQUIRED, AUTH_SITE_URL: "http://from-env" } });
    const config = readAuthConfig(env);
    expect(config.siteUrl).toBe("http://from-env");
    expect(config.jwt.exp).toBe(60);
  });
});

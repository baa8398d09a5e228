/**
 * The settings of every auth server the suite expects, as upstream's CI gives them to GoTrue:
 *
 * - `infra/docker-compose.yml` (the docker-tests): every service running the supabase/auth image,
 *   its `environment` taken as written, read from the checkout at run time;
 * - `test/supabase/config.toml` (every other test file), which the Supabase CLI turns into
 *   GOTRUE_* variables (buildGotrueEnv in supabase/cli's internal/start/start.go); that mapping is
 *   written out below for the values this config.toml sets.
 *
 * What is changed, and only this: the database (ours, see auth-js.ts), the SMTP host (the sink in
 * smtp-sink.ts instead of the inbucket container) and where the server listens (a loopback port
 * behind the front on the port the tests use, see front.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface ServerSettings {
  /** The compose service name, or `cli`. */
  name: string;
  /** Where the tests reach it. */
  port: number;
  /** Path prefix the gateway strips (Kong's /auth/v1 in the CLI setup). */
  prefix: string;
  env: Record<string, string>;
}

/** The compose file's `${NAME}`: the caller's environment, else empty (as in upstream CI, which sets none). */
const interpolate = (value: string) => value.replace(/\$\{(\w+)\}/g, (_, name: string) => process.env[name] ?? "");

function environment(raw: unknown): Record<string, string> {
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      raw.map((entry) => {
        const [name, ...rest] = String(entry).split("=");
        return [name as string, interpolate(rest.join("="))];
      }),
    );
  }
  return Object.fromEntries(Object.entries((raw ?? {}) as Record<string, unknown>).map(([k, v]) => [k, interpolate(String(v))]));
}

interface ComposeService {
  image?: string;
  environment?: unknown;
}

/** Every GoTrue of `infra/docker-compose.yml`. */
export function composeServers(packageDir: string): ServerSettings[] {
  const compose = parse(readFileSync(join(packageDir, "infra/docker-compose.yml"), "utf8")) as { services: Record<string, ComposeService> };
  return Object.entries(compose.services)
    .filter(([, service]) => /^supabase\/(auth|gotrue)[:@]/.test(service.image ?? ""))
    .map(([name, service]) => {
      const env = environment(service.environment);
      const port = Number(env.PORT ?? env.GOTRUE_API_PORT ?? 9999);
      return { name, port, prefix: "", env };
    });
}

/** config.toml's [api] port and the CLI's Kong route. */
export const CLI_PORT = 54321;
const CLI_EXTERNAL = `http://127.0.0.1:${CLI_PORT}/auth/v1`;

/**
 * `test/supabase/config.toml` as the Supabase CLI passes it to GoTrue; the comments name the
 * config.toml setting. `signingKeys` is `signing_keys_path` (test/supabase/signing_keys.json).
 */
export function cliServer(signingKeys: string): ServerSettings {
  const env: Record<string, string> = {
    API_EXTERNAL_URL: CLI_EXTERNAL,
    GOTRUE_API_HOST: "0.0.0.0",
    GOTRUE_API_PORT: "9999",
    GOTRUE_DB_DRIVER: "postgres",
    GOTRUE_SITE_URL: "http://127.0.0.1:3000", // auth.site_url
    GOTRUE_URI_ALLOW_LIST: "https://127.0.0.1:3000,http://localhost:5173", // auth.additional_redirect_urls
    GOTRUE_DISABLE_SIGNUP: "false", // auth.enable_signup
    GOTRUE_JWT_ADMIN_ROLES: "service_role",
    GOTRUE_JWT_AUD: "authenticated",
    GOTRUE_JWT_DEFAULT_GROUP_NAME: "authenticated",
    GOTRUE_JWT_EXP: "3600", // auth.jwt_expiry
    GOTRUE_JWT_SECRET: "super-secret-jwt-token-with-at-least-32-characters-long", // auth.jwt_secret
    GOTRUE_JWT_ISSUER: CLI_EXTERNAL,
    GOTRUE_JWT_KEYS: signingKeys,
    GOTRUE_JWT_VALIDMETHODS: "HS256,RS256,ES256",
    GOTRUE_JWT_VALID_METHODS: "HS256,RS256,ES256",
    GOTRUE_EXTERNAL_EMAIL_ENABLED: "true", // auth.email.enable_signup
    GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "true", // auth.email.double_confirm_changes
    GOTRUE_MAILER_AUTOCONFIRM: "true", // !auth.email.enable_confirmations
    GOTRUE_MAILER_OTP_LENGTH: "6",
    GOTRUE_MAILER_OTP_EXP: "3600",
    GOTRUE_MAILER_TEMPLATE_RELOADING_ENABLED: "true",
    GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true", // auth.enable_anonymous_sign_ins
    GOTRUE_SMTP_MAX_FREQUENCY: "1s", // auth.email.max_frequency
    GOTRUE_MAILER_URLPATHS_INVITE: `${CLI_EXTERNAL}/verify`,
    GOTRUE_MAILER_URLPATHS_CONFIRMATION: `${CLI_EXTERNAL}/verify`,
    GOTRUE_MAILER_URLPATHS_RECOVERY: `${CLI_EXTERNAL}/verify`,
    GOTRUE_MAILER_URLPATHS_EMAIL_CHANGE: `${CLI_EXTERNAL}/verify`,
    GOTRUE_RATE_LIMIT_EMAIL_SENT: "360000",
    GOTRUE_EXTERNAL_PHONE_ENABLED: "true", // auth.sms.enable_signup
    GOTRUE_SMS_AUTOCONFIRM: "true", // !auth.sms.enable_confirmations
    GOTRUE_SMS_MAX_FREQUENCY: "1s",
    GOTRUE_SMS_OTP_EXP: "6000",
    GOTRUE_SMS_OTP_LENGTH: "6",
    GOTRUE_SMS_TEMPLATE: "Your code is {{ .Code }}",
    GOTRUE_SMS_TEST_OTP: "1234567890:123456", // auth.sms.test_otp
    GOTRUE_PASSWORD_MIN_LENGTH: "6",
    GOTRUE_PASSWORD_REQUIRED_CHARACTERS: "",
    GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: "true",
    GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "10",
    GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: "false",
    GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "false", // auth.email.secure_password_change
    GOTRUE_MFA_PHONE_ENROLL_ENABLED: "true",
    GOTRUE_MFA_PHONE_VERIFY_ENABLED: "true",
    GOTRUE_MFA_TOTP_ENROLL_ENABLED: "true",
    GOTRUE_MFA_TOTP_VERIFY_ENABLED: "true",
    GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
    GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
    GOTRUE_MFA_MAX_ENROLLED_FACTORS: "10",
    GOTRUE_MFA_PHONE_TEMPLATE: "Your code is {{ .Code }}",
    GOTRUE_MFA_PHONE_OTP_LENGTH: "6",
    GOTRUE_MFA_PHONE_MAX_FREQUENCY: "1s",
    GOTRUE_RATE_LIMIT_ANONYMOUS_USERS: "100", // auth.rate_limit.*
    GOTRUE_RATE_LIMIT_TOKEN_REFRESH: "300",
    GOTRUE_RATE_LIMIT_OTP: "100",
    GOTRUE_RATE_LIMIT_VERIFY: "100",
    GOTRUE_RATE_LIMIT_SMS_SENT: "100",
    GOTRUE_RATE_LIMIT_WEB3: "30",
    GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED: "false",
    GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED: "false",
    GOTRUE_OAUTH_SERVER_ENABLED: "true", // auth.oauth_server
    GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH: "/oauth/consent",
    GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: "true",
    GOTRUE_PASSKEY_ENABLED: "true", // auth.passkey
    GOTRUE_WEBAUTHN_RP_ID: "localhost", // auth.webauthn
    GOTRUE_WEBAUTHN_RP_DISPLAY_NAME: "auth-js tests",
    GOTRUE_WEBAUTHN_RP_ORIGINS: "http://localhost:5173",
    GOTRUE_EXTERNAL_GOOGLE_ENABLED: "true", // auth.external.google
    GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID: "53566906701-bmhc1ndue7hild39575gkpimhs06b7ds.apps.googleusercontent.com",
    GOTRUE_EXTERNAL_GOOGLE_SECRET: process.env.SUPABASE_AUTH_EXTERNAL_GOOGLE_SECRET ?? "",
    GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK: "true",
    GOTRUE_EXTERNAL_GOOGLE_EMAIL_OPTIONAL: "false",
    GOTRUE_EXTERNAL_GOOGLE_REDIRECT_URI: `${CLI_EXTERNAL}/callback`,
    // [inbucket] enabled and no [auth.email.smtp]: the CLI's mail catcher.
    GOTRUE_SMTP_HOST: "inbucket",
    GOTRUE_SMTP_PORT: "1025",
    GOTRUE_SMTP_ADMIN_EMAIL: "admin@email.com",
    GOTRUE_SMTP_SENDER_NAME: "Admin",
  };
  return { name: "cli", port: CLI_PORT, prefix: "/auth/v1", env };
}

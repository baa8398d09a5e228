/**
 * The auth configuration, built once at start-up from the HASURA_GRAPHQL_* settings with
 * Hasura's combination rules (`setupAuthMode`): JWT and webhook need an admin secret, exclude
 * each other, and the unauthorized role needs an admin secret and no webhook.
 */
import { createHash } from "node:crypto";
import { JwksCache, type JwksOptions } from "./jwks.js";
import { AuthConfigError, type JwtConfig, parseJwtSecret, parseJwtSecrets } from "./jwt-config.js";
import type { WebhookConfig } from "./webhook.js";

export { AuthConfigError } from "./jwt-config.js";

/** The raw settings, as the service's config module reads them. */
export interface AuthSettings {
  /** HASURA_GRAPHQL_ADMIN_SECRET (or the older HASURA_GRAPHQL_ACCESS_KEY). */
  adminSecret?: string | undefined;
  /** HASURA_GRAPHQL_JWT_SECRET: the JSON text. */
  jwtSecret?: string | undefined;
  /** HASURA_GRAPHQL_JWT_SECRETS: the JSON text of a list of secrets; wins over jwtSecret when both are set. */
  jwtSecrets?: string | undefined;
  /** HASURA_GRAPHQL_AUTH_HOOK. */
  authHook?: string | undefined;
  /** HASURA_GRAPHQL_AUTH_HOOK_MODE: GET (default) or POST. */
  authHookMode?: string | undefined;
  /** HASURA_GRAPHQL_UNAUTHORIZED_ROLE. */
  unauthorizedRole?: string | undefined;
  authHookTimeoutMs?: number | undefined;
  jwks?: JwksOptions | undefined;
}

/** One trusted JWT secret, with the key-set cache of a `jwk_url` secret. */
export interface JwtSecret {
  config: JwtConfig;
  jwks: JwksCache | null;
}

export interface AuthConfig {
  /** SHA-512 of the admin secret; null when none is configured (every request is admin). */
  adminSecretHash: Buffer | null;
  unauthorizedRole: string | null;
  /** The trusted JWT secrets, in configuration order; null when JWT mode is off. */
  jwt: JwtSecret[] | null;
  webhook: WebhookConfig | null;
}

export function hashSecret(secret: string): Buffer {
  return createHash("sha512").update(secret, "utf8").digest();
}

const given = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value);

const REQUIRES_ADMIN = " requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set";

/**
 * The JWT secrets: HASURA_GRAPHQL_JWT_SECRETS when set (and not an empty list), else
 * HASURA_GRAPHQL_JWT_SECRET ("If both are set, HASURA_GRAPHQL_JWT_SECRETS will be used":
 * https://hasura.io/docs/latest/auth/authentication/multiple-jwt-secrets/).
 */
function parseSecrets(settings: AuthSettings, problems: string[]): { variable: string; configs: JwtConfig[] } | null {
  const list = given(settings.jwtSecrets);
  const single = given(settings.jwtSecret);
  let variable = "HASURA_GRAPHQL_JWT_SECRETS";
  try {
    const configs = list ? parseJwtSecrets(list) : [];
    if (configs.length > 0) return { variable, configs };
    if (!single) return null;
    variable = "HASURA_GRAPHQL_JWT_SECRET";
    return { variable, configs: [parseJwtSecret(single)] };
  } catch (error) {
    if (!(error instanceof AuthConfigError)) throw error;
    problems.push(...error.problems);
    return { variable, configs: [] };
  }
}

/** A key-set cache per distinct `jwk_url`, so secrets naming the same URL fetch it once. */
function withKeySets(configs: JwtConfig[], options: JwksOptions | undefined): JwtSecret[] {
  const caches = new Map<string, JwksCache>();
  return configs.map((config) => {
    if (!config.jwkUrl) return { config, jwks: null };
    let jwks = caches.get(config.jwkUrl);
    if (!jwks) {
      jwks = new JwksCache(config.jwkUrl, options);
      caches.set(config.jwkUrl, jwks);
    }
    return { config, jwks };
  });
}

/** Builds the auth configuration; throws AuthConfigError listing every problem. */
export function createAuthConfig(settings: AuthSettings): AuthConfig {
  const problems: string[] = [];
  const adminSecret = given(settings.adminSecret);
  const hook = given(settings.authHook);
  const unauthorizedRole = given(settings.unauthorizedRole) ?? null;
  // The combination rules are reported first, then the problems of the secrets themselves.
  const secretProblems: string[] = [];
  const secrets = parseSecrets(settings, secretProblems);

  if (secrets && hook) problems.push("Fatal Error: Both webhook and JWT mode cannot be enabled at the same time");
  else if (!adminSecret && secrets) {
    const flag = secrets.variable === "HASURA_GRAPHQL_JWT_SECRET" ? "--jwt-secret (HASURA_GRAPHQL_JWT_SECRET)" : secrets.variable;
    problems.push(`Fatal Error : ${flag}${REQUIRES_ADMIN}`);
  } else if (!adminSecret && hook) problems.push(`Fatal Error : --auth-hook (HASURA_GRAPHQL_AUTH_HOOK)${REQUIRES_ADMIN}`);
  if (unauthorizedRole && (!adminSecret || hook)) {
    problems.push(
      `Fatal Error: --unauthorized-role (HASURA_GRAPHQL_UNAUTHORIZED_ROLE)${REQUIRES_ADMIN} and is not allowed when --auth-hook (HASURA_GRAPHQL_AUTH_HOOK) is set`,
    );
  }

  problems.push(...secretProblems);

  let webhook: WebhookConfig | null = null;
  if (hook) {
    const mode = (given(settings.authHookMode) ?? "GET").toUpperCase();
    if (mode !== "GET" && mode !== "POST") problems.push("HASURA_GRAPHQL_AUTH_HOOK_MODE must be GET or POST");
    if (!URL.canParse(hook) || !/^https?:$/.test(new URL(hook).protocol)) problems.push("HASURA_GRAPHQL_AUTH_HOOK must be an http(s) URL");
    webhook = { url: hook, mode: mode === "POST" ? "POST" : "GET", timeoutMs: settings.authHookTimeoutMs ?? 30_000 };
  }

  if (problems.length > 0) throw new AuthConfigError(problems);
  const jwt = secrets ? withKeySets(secrets.configs, settings.jwks) : null;
  return { adminSecretHash: adminSecret ? hashSecret(adminSecret) : null, unauthorizedRole, jwt, webhook };
}

/**
 * The auth configuration, built once at start-up from the HASURA_GRAPHQL_* settings with
 * Hasura's combination rules (`setupAuthMode`): JWT and webhook need an admin secret, exclude
 * each other, and the unauthorized role needs an admin secret and no webhook.
 */
import { createHash } from "node:crypto";
import { JwksCache, type JwksOptions } from "./jwks.js";
import { AuthConfigError, type JwtConfig, parseJwtSecret } from "./jwt-config.js";
import type { WebhookConfig } from "./webhook.js";

export { AuthConfigError } from "./jwt-config.js";

/** The raw settings, as the service's config module reads them. */
export interface AuthSettings {
  /** HASURA_GRAPHQL_ADMIN_SECRET (or the older HASURA_GRAPHQL_ACCESS_KEY). */
  adminSecret?: string | undefined;
  /** HASURA_GRAPHQL_JWT_SECRET: the JSON text. */
  jwtSecret?: string | undefined;
  /** HASURA_GRAPHQL_AUTH_HOOK. */
  authHook?: string | undefined;
  /** HASURA_GRAPHQL_AUTH_HOOK_MODE: GET (default) or POST. */
  authHookMode?: string | undefined;
  /** HASURA_GRAPHQL_UNAUTHORIZED_ROLE. */
  unauthorizedRole?: string | undefined;
  authHookTimeoutMs?: number | undefined;
  jwks?: JwksOptions | undefined;
}

export interface AuthConfig {
  /** SHA-512 of the admin secret; null when none is configured (every request is admin). */
  adminSecretHash: Buffer | null;
  unauthorizedRole: string | null;
  jwt: { config: JwtConfig; jwks: JwksCache | null } | null;
  webhook: WebhookConfig | null;
}

export function hashSecret(secret: string): Buffer {
  return createHash("sha512").update(secret, "utf8").digest();
}

const given = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value);

const REQUIRES_ADMIN = " requires --admin-secret (HASURA_GRAPHQL_ADMIN_SECRET) or  --access-key (HASURA_GRAPHQL_ACCESS_KEY) to be set";

/** Builds the auth configuration; throws AuthConfigError listing every problem. */
export function createAuthConfig(settings: AuthSettings): AuthConfig {
  const problems: string[] = [];
  const adminSecret = given(settings.adminSecret);
  const jwtSecret = given(settings.jwtSecret);
  const hook = given(settings.authHook);
  const unauthorizedRole = given(settings.unauthorizedRole) ?? null;

  if (jwtSecret && hook) problems.push("Fatal Error: Both webhook and JWT mode cannot be enabled at the same time");
  else if (!adminSecret && jwtSecret) problems.push(`Fatal Error : --jwt-secret (HASURA_GRAPHQL_JWT_SECRET)${REQUIRES_ADMIN}`);
  else if (!adminSecret && hook) problems.push(`Fatal Error : --auth-hook (HASURA_GRAPHQL_AUTH_HOOK)${REQUIRES_ADMIN}`);
  if (unauthorizedRole && (!adminSecret || hook)) {
    problems.push(
      `Fatal Error: --unauthorized-role (HASURA_GRAPHQL_UNAUTHORIZED_ROLE)${REQUIRES_ADMIN} and is not allowed when --auth-hook (HASURA_GRAPHQL_AUTH_HOOK) is set`,
    );
  }

  let jwt: AuthConfig["jwt"] = null;
  if (jwtSecret) {
    try {
      const config = parseJwtSecret(jwtSecret);
      jwt = { config, jwks: config.jwkUrl ? new JwksCache(config.jwkUrl, settings.jwks) : null };
    } catch (error) {
      if (!(error instanceof AuthConfigError)) throw error;
      problems.push(...error.problems);
    }
  }

  let webhook: WebhookConfig | null = null;
  if (hook) {
    const mode = (given(settings.authHookMode) ?? "GET").toUpperCase();
    if (mode !== "GET" && mode !== "POST") problems.push("HASURA_GRAPHQL_AUTH_HOOK_MODE must be GET or POST");
    if (!URL.canParse(hook) || !/^https?:$/.test(new URL(hook).protocol)) problems.push("HASURA_GRAPHQL_AUTH_HOOK must be an http(s) URL");
    webhook = { url: hook, mode: mode === "POST" ? "POST" : "GET", timeoutMs: settings.authHookTimeoutMs ?? 30_000 };
  }

  if (problems.length > 0) throw new AuthConfigError(problems);
  return { adminSecretHash: adminSecret ? hashSecret(adminSecret) : null, unauthorizedRole, jwt, webhook };
}

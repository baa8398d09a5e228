/**
 * The external OAuth providers GoTrue serves (EXTERNAL_<NAME>_*; supabase/auth
 * internal/conf/configuration.go ProviderConfiguration, OAuthProviderConfiguration).
 */
import { boolean, custom, type Env, readConfig, string } from "@platform/core";
import { list, names, optionalUrl } from "./values.js";

export const PROVIDERS = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "fly",
  "github",
  "gitlab",
  "google",
  "kakao",
  "keycloak",
  "linkedin",
  "linkedin_oidc",
  "notion",
  "slack",
  "slack_oidc",
  "snapchat",
  "spotify",
  "twitch",
  "twitter",
  "vercel_marketplace",
  "workos",
  "x",
  "zoom",
] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** The providers GET /settings lists in `external`: all but x and vercel_marketplace (supabase/auth internal/api/settings.go). */
export const SETTINGS_PROVIDERS: readonly ProviderName[] = PROVIDERS.filter((p) => p !== "x" && p !== "vercel_marketplace");

export interface ProviderConfig {
  enabled: boolean;
  /** The first of CLIENT_ID (a comma list): the client of the redirect flow. */
  clientId?: string | undefined;
  /** Every CLIENT_ID: the audiences an ID token (grant_type=id_token) may be issued for. */
  clientIds?: string[] | undefined;
  secret?: string | undefined;
  redirectUri?: string | undefined;
  url?: string | undefined;
  /** EMAIL_OPTIONAL: sign in even when the provider gives no email address. */
  emailOptional?: boolean | undefined;
  /** SKIP_NONCE_CHECK: the id_token grant does not compare nonces. */
  skipNonceCheck?: boolean | undefined;
  /**
   * TEST_ISSUER: replaces the OpenID issuer GoTrue fixes for this provider (Google's, Apple's,
   * ...) and so where discovery and the keys are read, to test against a local provider. Off by
   * default and refused when NODE_ENV is production.
   */
  testIssuer?: string | undefined;
  /**
   * The settings an enabled provider lacks. GoTrue starts anyway and refuses the provider when it
   * is used (its OAuth config is checked per request), so this is warned about at start-up.
   */
  missing?: string[] | undefined;
}

/** Providers whose EXTERNAL_X_URL must name the instance (there is no public default host). */
const URL_REQUIRED: ReadonlySet<ProviderName> = new Set(["keycloak"]);

function testIssuer(env: Env, provider: ProviderName) {
  return (raw: string | undefined): string | undefined => {
    if (raw === undefined) return undefined;
    if (env.NODE_ENV === "production") throw new Error("is for tests only and refused when NODE_ENV is production");
    if (!FIXED_ISSUER.has(provider)) throw new Error(`is not a setting of ${provider}: its issuer is not fixed`);
    return optionalUrl(raw);
  };
}

/** The providers whose OpenID issuer GoTrue fixes (the others take it from EXTERNAL_X_URL). */
export const FIXED_ISSUER: ReadonlySet<ProviderName> = new Set([
  "apple",
  "azure",
  "facebook",
  "google",
  "kakao",
  "linkedin_oidc",
  "snapchat",
  "vercel_marketplace",
]);

function readProvider(env: Env, provider: ProviderName): ProviderConfig {
  const key = `EXTERNAL_${provider.toUpperCase()}`;
  const read = readConfig(env, {
    enabled: boolean(names(`${key}_ENABLED`), false),
    clientIds: custom(names(`${key}_CLIENT_ID`), (raw) => list(raw)),
    secret: string(names(`${key}_SECRET`)),
    redirectUri: custom(names(`${key}_REDIRECT_URI`), optionalUrl),
    url: custom(names(`${key}_URL`), optionalUrl),
    emailOptional: boolean(names(`${key}_EMAIL_OPTIONAL`), false),
    skipNonceCheck: boolean(names(`${key}_SKIP_NONCE_CHECK`), false),
    testIssuer: custom(names(`${key}_TEST_ISSUER`), testIssuer(env, provider)),
  });
  const settings: ProviderConfig = { ...read, clientId: read.clientIds[0] };
  if (!settings.enabled) return settings;
  const required: [string, unknown][] = [
    ["CLIENT_ID", settings.clientId],
    ["SECRET", settings.secret],
    ["REDIRECT_URI", settings.redirectUri],
  ];
  if (URL_REQUIRED.has(provider)) required.push(["URL", settings.url]);
  const missing = required.filter(([, value]) => value === undefined).map(([field]) => `AUTH_${key}_${field}`);
  return missing.length > 0 ? { ...settings, missing } : settings;
}

/** Reads every provider; a malformed value (a ConfigError of one field) goes to `collect`'s problems. */
export function readProviders(collect: <T>(read: () => T) => T | undefined, env: Env) {
  const providers = {} as Record<ProviderName, ProviderConfig>;
  for (const provider of PROVIDERS) {
    providers[provider] = collect(() => readProvider(env, provider)) ?? { enabled: false };
  }
  return providers;
}

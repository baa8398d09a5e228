/**
 * The external OAuth providers GoTrue serves (EXTERNAL_<NAME>_*; supabase/auth
 * internal/conf/configuration.go ProviderConfiguration). They are read and validated now so a
 * deployment's settings are checked at start-up; the sign-in flows (/authorize, /callback) are
 * not built yet.
 */
import { boolean, custom, type Env, readConfig, string } from "@platform/core";
import { names, optionalUrl } from "./values.js";

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
  clientId?: string | undefined;
  secret?: string | undefined;
  redirectUri?: string | undefined;
  url?: string | undefined;
  /**
   * The settings an enabled provider lacks. GoTrue starts anyway and refuses the provider when it
   * is used (its OAuth config is checked per request), so this is warned about at start-up.
   */
  missing?: string[] | undefined;
}

/** Providers whose EXTERNAL_X_URL must name the instance (there is no public default host). */
const URL_REQUIRED: ReadonlySet<ProviderName> = new Set(["keycloak"]);

function readProvider(env: Env, provider: ProviderName): ProviderConfig {
  const key = `EXTERNAL_${provider.toUpperCase()}`;
  const settings = readConfig(env, {
    enabled: boolean(names(`${key}_ENABLED`), false),
    clientId: string(names(`${key}_CLIENT_ID`)),
    secret: string(names(`${key}_SECRET`)),
    redirectUri: custom(names(`${key}_REDIRECT_URI`), optionalUrl),
    url: custom(names(`${key}_URL`), optionalUrl),
  });
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

/**
 * The eighteen external OAuth providers (EXTERNAL_<NAME>_*). They are read and validated
 * now so a deployment's settings are checked at start-up; the OAuth flows come later.
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
  "github",
  "gitlab",
  "google",
  "kakao",
  "keycloak",
  "linkedin_oidc",
  "notion",
  "slack_oidc",
  "spotify",
  "twitch",
  "twitter",
  "zoom",
] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderConfig {
  enabled: boolean;
  clientId?: string | undefined;
  secret?: string | undefined;
  redirectUri?: string | undefined;
  url?: string | undefined;
}

/** Providers whose EXTERNAL_X_URL must name the instance (there is no public default host). */
const URL_REQUIRED: ReadonlySet<ProviderName> = new Set(["keycloak"]);

function readProvider(env: Env, provider: ProviderName, problems: string[]): ProviderConfig {
  const key = `EXTERNAL_${provider.toUpperCase()}`;
  const settings = readConfig(env, {
    enabled: boolean(names(`${key}_ENABLED`), false),
    clientId: string(names(`${key}_CLIENT_ID`)),
    secret: string(names(`${key}_SECRET`)),
    redirectUri: custom(names(`${key}_REDIRECT_URI`), optionalUrl),
    url: custom(names(`${key}_URL`), optionalUrl),
  });
  if (settings.enabled) {
    const missing = (field: string, value: unknown) => {
      if (value === undefined) problems.push(`AUTH_${key}_${field} is required when AUTH_${key}_ENABLED is true`);
    };
    missing("CLIENT_ID", settings.clientId);
    missing("SECRET", settings.secret);
    missing("REDIRECT_URI", settings.redirectUri);
    if (URL_REQUIRED.has(provider)) missing("URL", settings.url);
  }
  return settings;
}

/** Reads every provider; problems (including ConfigErrors of single fields) go to `problems`. */
export function readProviders(env: Env, problems: string[], collect: <T>(read: () => T) => T | undefined) {
  const providers = {} as Record<ProviderName, ProviderConfig>;
  for (const provider of PROVIDERS) {
    providers[provider] = collect(() => readProvider(env, provider, problems)) ?? { enabled: false };
  }
  return providers;
}

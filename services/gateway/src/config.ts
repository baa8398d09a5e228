/**
 * The gateway's configuration, read once at start-up. Upstream URLs, the API keys it accepts
 * (Supabase's names accepted as aliases: ANON_KEY, SERVICE_ROLE_KEY, SUPABASE_PUBLISHABLE_KEY,
 * SUPABASE_SECRET_KEY), CORS origins and logging.
 */
import { ConfigError, custom, type Env, integer, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function httpUrl(fallback: string) {
  return (raw: string | undefined): string => {
    const value = raw ?? fallback;
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new Error(`must be an http(s) URL, got "${value}"`);
    return value.replace(/\/+$/, "");
  };
}

function opaqueKey(prefix: string) {
  return (raw: string | undefined): string | undefined => {
    if (raw !== undefined && !raw.startsWith(prefix)) throw new Error(`must start with ${prefix}`);
    return raw;
  };
}

function origins(raw: string | undefined): string[] {
  const list = (raw ?? "*")
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
  for (const origin of list) {
    if (origin !== "*" && (!URL.canParse(origin) || new URL(origin).origin !== origin)) {
      throw new Error(`"${origin}" is not an origin (scheme://host[:port]) or *`);
    }
  }
  return list;
}

export function readGatewayConfig(env: Env) {
  const config = readConfig(env, {
    host: string("GATEWAY_HOST", "0.0.0.0"),
    port: integer("GATEWAY_PORT", 54321, { min: 0, max: 65535 }),
    authUrl: custom("GATEWAY_AUTH_URL", httpUrl("http://127.0.0.1:8081")),
    graphqlUrl: custom("GATEWAY_GRAPHQL_URL", httpUrl("http://127.0.0.1:8080")),
    catalogUrl: custom("GATEWAY_CATALOG_URL", httpUrl("http://127.0.0.1:5634")),
    anonKey: string(["GATEWAY_ANON_KEY", "ANON_KEY", "SUPABASE_ANON_KEY"]),
    serviceRoleKey: string(["GATEWAY_SERVICE_ROLE_KEY", "SERVICE_ROLE_KEY", "SUPABASE_SERVICE_KEY"]),
    publishableKey: custom(["GATEWAY_PUBLISHABLE_KEY", "SUPABASE_PUBLISHABLE_KEY"], opaqueKey("sb_publishable_")),
    secretKey: custom(["GATEWAY_SECRET_KEY", "SUPABASE_SECRET_KEY"], opaqueKey("sb_secret_")),
    corsOrigins: custom("GATEWAY_CORS_ORIGINS", origins),
    upstreamTimeoutMs: integer("GATEWAY_UPSTREAM_TIMEOUT_MS", 60_000, { min: 1 }),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "auto"),
  });
  const problems: string[] = [];
  if (config.publishableKey && !config.anonKey) problems.push("GATEWAY_PUBLISHABLE_KEY needs GATEWAY_ANON_KEY (the token it stands for)");
  if (config.secretKey && !config.serviceRoleKey)
    problems.push("GATEWAY_SECRET_KEY needs GATEWAY_SERVICE_ROLE_KEY (the token it stands for)");
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

export type GatewayConfig = ReturnType<typeof readGatewayConfig>;

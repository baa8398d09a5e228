/**
 * The MetaGame backend's configuration, read once at start-up. Names follow MetaGame's backend
 * where it has one (APP_ENV, PSEED_FOR_QUEST, NEXT_BRIGHTID_APP_URL), and every external service
 * is optional: unconfigured, the feature answers its documented empty value or logs that it
 * skipped, so the project runs offline.
 */
import { ConfigError, collectProblems, custom, type Env, integer, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** pSEED, the ERC-20 on Polygon whose balance gates quest creation in MetaGame. */
export const PSEED_CONTRACT = "0x8a8fcd351ed553fc75aecbc566a32f94471f302e";

function httpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`must be an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

function postgresUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(raw)) throw new Error("must be a postgres:// or postgresql:// URL");
  return raw;
}

function address(raw: string | undefined): string {
  if (raw === undefined) return PSEED_CONTRACT;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new Error(`must be a 0x-prefixed 20-byte hex address, got "${raw}"`);
  return raw.toLowerCase();
}

function nonNegative(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value)) throw new Error(`must be a non-negative number, got "${raw}"`);
  return value;
}

export function readBackendConfig(env: Env) {
  const problems: string[] = [];
  const settings = collectProblems(problems, () =>
    readConfig(env, {
      host: string("METAGAME_BACKEND_HOST", "0.0.0.0"),
      port: integer(["METAGAME_BACKEND_PORT", "PORT"], 4000, { min: 0, max: 65535 }),
      logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
      logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "auto"),
      appEnv: string("APP_ENV", "development"),
      /** The engine's GraphQL endpoint, which the handlers call as admin (as MetaGame's do). */
      graphqlUrl: custom("METAGAME_GRAPHQL_URL", (raw) => httpUrl(raw) ?? "http://127.0.0.1:8080/v1/graphql"),
      adminSecret: string(["HASURA_GRAPHQL_ADMIN_SECRET", "HASURA_GRAPHQL_ACCESS_KEY"]),
      /** What the engine's cron deliveries carry (a header of each cron trigger); the cron targets refuse other callers. */
      cronSecret: string("METAGAME_CRON_SECRET"),
      /** The database of the job queue: the engine's own, so every instance shares it. */
      databaseUrl: custom(["METAGAME_DATABASE_URL", "HASURA_GRAPHQL_DATABASE_URL", "DATABASE_URL"], postgresUrl),
      dataDir: string("METAGAME_DATA_DIR", "./data/metagame"),
      // The auth service whose tokens the webhook accepts: its JWKS for user tokens, its JWT
      // secret for HS256 tokens (the anon / service_role API keys, or users when auth signs HS256).
      authJwksUrl: custom("AUTH_JWKS_URL", httpUrl),
      authJwtSecret: string(["AUTH_JWT_SECRET", "GOTRUE_JWT_SECRET"]),
      authJwtIssuer: string(["AUTH_JWT_ISSUER", "GOTRUE_JWT_ISSUER"]),
      // createQuest's token gate: the caller's pSEED balance read through this JSON-RPC endpoint.
      pSeedRpcUrl: custom("PSEED_RPC_URL", httpUrl),
      pSeedContract: custom("PSEED_CONTRACT_ADDRESS", address),
      pSeedForQuest: custom("PSEED_FOR_QUEST", nonNegative),
      brightIdAppUrl: custom(["BRIGHTID_APP_URL", "NEXT_BRIGHTID_APP_URL"], (raw) => httpUrl(raw) ?? "https://app.brightid.org"),
      /** Where a player's public profile is read from when the profile cache is refreshed. */
      profileSourceUrl: custom("PROFILE_SOURCE_URL", httpUrl),
      daohausGraphUrl: custom("DAOHAUS_GRAPH_URL", httpUrl),
      discordApiUrl: custom("DISCORD_API_URL", (raw) => httpUrl(raw) ?? "https://discord.com/api/v10"),
      discordBotToken: string("DISCORD_BOT_TOKEN"),
      discordClientId: string("DISCORD_CLIENT_ID"),
      discordClientSecret: string("DISCORD_CLIENT_SECRET"),
      discordRedirectUri: custom("DISCORD_REDIRECT_URI", httpUrl),
      /** The channel where accepted quest completions are given props (MetaFam's #props). */
      discordPropsChannelId: string("DISCORD_PROPS_CHANNEL_ID"),
      /** The web app's address, for links in messages the backend posts. */
      frontendUrl: custom("FRONTEND_URL", (raw) => httpUrl(raw) ?? "https://metagame.wtf"),
      sourceCredLedgerUrl: custom("SOURCECRED_LEDGER_URL", httpUrl),
      /** Profile refreshes run at once per instance. */
      queueConcurrency: integer("METAGAME_QUEUE_CONCURRENCY", 4, { min: 1, max: 100 }),
    }),
  );
  if (problems.length > 0 || !settings) throw new ConfigError(problems);
  // MetaGame requires 100 pSEED in production and none elsewhere.
  const pSeedForQuest = settings.pSeedForQuest ?? (settings.appEnv === "production" ? 100 : 0);
  return { ...settings, pSeedForQuest };
}

export type BackendConfig = ReturnType<typeof readBackendConfig>;

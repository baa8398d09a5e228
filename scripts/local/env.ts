/**
 * `npm start`'s local values: every service's configuration completed where the environment
 * (and `.env`) leave it unset, so a fresh clone starts with nothing to configure. A value that is
 * set always wins; each filled name is reported, and none of this applies to the services'
 * own start commands.
 */
import { resolve } from "node:path";
import type { Env } from "@platform/core";
import type { LocalSecrets } from "./secrets.js";

export interface LocalPorts {
  gateway: number;
  auth: number;
  graphql: number;
  catalog: number;
  metagame: number;
}

export interface LocalEnv {
  env: Env;
  /** Names given a local value (the summary and the start-up warning list them). */
  filled: string[];
  /** One embedded database for auth and graphql, or null when either has its own settings. */
  sharedDataDir: string | null;
  gatewayUrl: string;
}

/** The first non-empty value among a setting's names, as the services read it. */
export function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

const isSet = (env: Env, names: readonly string[]) => firstSet(env, names) !== undefined;

/** The names each setting goes by, as the services read them (the first is the one filled). */
export const NAMES = {
  authSiteUrl: ["AUTH_SITE_URL", "GOTRUE_SITE_URL"],
  authExternalUrl: ["AUTH_API_EXTERNAL_URL", "GOTRUE_API_EXTERNAL_URL", "API_EXTERNAL_URL"],
  authDriver: ["AUTH_DB_DRIVER", "GOTRUE_DB_DRIVER"],
  authJwtSecret: ["AUTH_JWT_SECRET", "GOTRUE_JWT_SECRET"],
  authJwtAlgorithm: ["AUTH_JWT_ALGORITHM", "GOTRUE_JWT_ALGORITHM"],
  authUrlPaths: (["INVITE", "CONFIRMATION", "RECOVERY", "EMAIL_CHANGE"] as const).map((kind) => [
    `AUTH_MAILER_URLPATHS_${kind}`,
    `GOTRUE_MAILER_URLPATHS_${kind}`,
  ]),
  authHost: ["AUTH_API_HOST", "GOTRUE_API_HOST"],
  authPort: ["AUTH_API_PORT", "GOTRUE_API_PORT", "PORT", "API_PORT"],
  authDatabase: ["AUTH_DB_DATABASE_URL", "GOTRUE_DB_DATABASE_URL", "DATABASE_URL", "DB_DATABASE_URL"],
  authDataDir: ["AUTH_DATA_DIR", "GOTRUE_DATA_DIR"],
  graphqlAdminSecret: ["HASURA_GRAPHQL_ADMIN_SECRET", "HASURA_GRAPHQL_ACCESS_KEY"],
  graphqlAuth: ["HASURA_GRAPHQL_JWT_SECRET", "HASURA_GRAPHQL_JWT_SECRETS", "HASURA_GRAPHQL_AUTH_HOOK"],
  graphqlHost: ["HASURA_GRAPHQL_SERVER_HOST"],
  graphqlPort: ["HASURA_GRAPHQL_SERVER_PORT"],
  graphqlDatabase: ["HASURA_GRAPHQL_DATABASE_URL", "HASURA_GRAPHQL_METADATA_DATABASE_URL"],
  graphqlDataDir: ["HASURA_GRAPHQL_DATA_DIR"],
  catalogDb: ["ENDPOINT_CATALOG_DB", "CATALOG_DB"],
  catalogHost: ["CATALOG_HOST"],
  catalogPort: ["CATALOG_PORT"],
  gatewayHost: ["GATEWAY_HOST"],
  gatewayPort: ["GATEWAY_PORT"],
  gatewayAnon: ["GATEWAY_ANON_KEY", "ANON_KEY", "SUPABASE_ANON_KEY"],
  gatewayService: ["GATEWAY_SERVICE_ROLE_KEY", "SERVICE_ROLE_KEY", "SUPABASE_SERVICE_KEY"],
  gatewayPublishable: ["GATEWAY_PUBLISHABLE_KEY", "SUPABASE_PUBLISHABLE_KEY"],
  gatewaySecret: ["GATEWAY_SECRET_KEY", "SUPABASE_SECRET_KEY"],
  metagameHost: ["METAGAME_BACKEND_HOST"],
  metagamePort: ["METAGAME_BACKEND_PORT"],
  metagameCronSecret: ["METAGAME_CRON_SECRET"],
} as const;

/** Ports as configured, 0 where unset (callers pick the defaults or free ports). */
export function configuredPort(env: Env, names: readonly string[], fallback: number): number {
  const raw = firstSet(env, names);
  return raw && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

/** The embedded database auth and graphql share, unless either has a database or data directory of its own. */
export function sharedDatabaseDir(env: Env, dataDir: string): string | null {
  const embedded = !isSet(env, NAMES.authDatabase) && !isSet(env, NAMES.graphqlDatabase);
  const ownDirs = isSet(env, NAMES.authDataDir) || isSet(env, NAMES.graphqlDataDir);
  return embedded && !ownDirs ? resolve(dataDir, "postgres") : null;
}

export function localEnv(env: Env, secrets: LocalSecrets, dataDir: string, ports: LocalPorts): LocalEnv {
  const out: Record<string, string | undefined> = { ...env };
  const filled: string[] = [];
  const fill = (names: readonly string[], value: string) => {
    if (isSet(env, names)) return;
    out[names[0] as string] = value;
    filled.push(names[0] as string);
  };
  const gatewayUrl = `http://localhost:${ports.gateway}`;
  const loopback = "127.0.0.1";

  // Ports are fixed up front (free ones where 0 was asked for) so every URL below is known; a
  // value that is not a port is left for the service's own check to report.
  const setPort = (names: readonly string[], port: number) => {
    const given = firstSet(env, names);
    if (given === undefined || given === "0") out[names[0] as string] = String(port);
  };
  setPort(NAMES.gatewayPort, ports.gateway);
  setPort(NAMES.authPort, ports.auth);
  setPort(NAMES.graphqlPort, ports.graphql);
  setPort(NAMES.catalogPort, ports.catalog);
  setPort(NAMES.metagamePort, ports.metagame);

  // Local means local: every listener on loopback unless told otherwise (the keys are printed).
  fill(NAMES.gatewayHost, loopback);
  fill(NAMES.authHost, loopback);
  fill(NAMES.graphqlHost, loopback);
  fill(NAMES.catalogHost, loopback);
  fill(NAMES.metagameHost, loopback);

  fill(NAMES.authSiteUrl, "http://localhost:3000");
  // Links in mail and the tokens' issuer name the gateway, where clients reach auth. A mail's link
  // is API_EXTERNAL_URL resolved against MAILER_URLPATHS_* (as in GoTrue, a path replaces the
  // URL's), so the paths carry the gateway's prefix, as Supabase's self-hosting setup sets them.
  if (!isSet(env, NAMES.authExternalUrl)) for (const names of NAMES.authUrlPaths) fill(names, "/auth/v1/verify");
  fill(NAMES.authExternalUrl, `${gatewayUrl}/auth/v1`);
  fill(NAMES.authDriver, "postgres");
  fill(NAMES.authJwtSecret, secrets.jwtSecret.value);
  // With only a secret the service would sign HS256; npm start's wiring (JWKS for the engine
  // and the backend's webhook) is built around RS256 session tokens, so ask for them.
  fill(NAMES.authJwtAlgorithm, "RS256");
  // Sign-ups wait for their confirmation mail, as in production; locally the auth service
  // catches mail in-process and lists it at its /_mail page (the summary says where).
  fill(NAMES.graphqlAdminSecret, secrets.graphqlAdminSecret.value);
  fill(NAMES.metagameCronSecret, secrets.metagameCronSecret.value);
  fill(NAMES.catalogDb, `sqlite:///${resolve(dataDir, "catalog.db")}`);

  fill(NAMES.gatewayAnon, secrets.anonKey.value);
  fill(NAMES.gatewayService, secrets.serviceRoleKey.value);
  if (secrets.publishableKey) fill(NAMES.gatewayPublishable, secrets.publishableKey.value);
  if (secrets.secretKey) fill(NAMES.gatewaySecret, secrets.secretKey.value);

  const sharedDataDir = sharedDatabaseDir(env, dataDir);
  if (!sharedDataDir) {
    fill(NAMES.authDataDir, resolve(dataDir, "auth"));
    fill(NAMES.graphqlDataDir, resolve(dataDir, "graphql"));
  }
  return { env: out, filled, sharedDataDir, gatewayUrl };
}

/**
 * The MetaGame project's JWT mode: user sessions from the auth service are role `player` with
 * X-Hasura-User-Id = the user id (`sub`), mapped by claims_map since the auth service's tokens
 * carry no Hasura claims (https://hasura.io/docs/2.0/auth/authentication/jwt/#claims_map); the
 * API keys keep their own claims (anon, and admin for service_role).
 */
export function metagameJwtSecrets(auth: { jwksUrl: string; issuer: string; algorithm: string; secret: string }, apiKeyIssuer: string) {
  const claimsMap = {
    "x-hasura-allowed-roles": ["player"],
    "x-hasura-default-role": "player",
    "x-hasura-user-id": { path: "$.sub" },
  };
  const sessions = auth.algorithm === "HS256" ? { type: "HS256", key: auth.secret } : { jwk_url: auth.jwksUrl };
  return [
    { ...sessions, issuer: auth.issuer, claims_map: claimsMap },
    { type: "HS256", key: auth.secret, issuer: apiKeyIssuer },
  ];
}

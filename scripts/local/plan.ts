/**
 * Everything `npm start` runs, decided before anything starts: the start settings, the local
 * secrets, free ports where 0 was asked for, and each service's configuration read from the
 * completed environment. Every problem of every service is reported in one ConfigError.
 *
 * The GraphQL engine serves the MetaGame project (projects/metagame) with its backend: the
 * project's migrations and metadata, and the backend's actions, remote schema and triggers. Users
 * of the auth service are its players: by default the engine asks the backend's webhook, which
 * verifies the auth service's token and creates the player on first sight; METAGAME_AUTH=jwt has
 * the engine verify the tokens itself instead.
 */
import { type AuthConfig, readAuthConfig } from "@platform/auth";
import { type CatalogConfig, readCatalogConfig } from "@platform/catalog";
import { ConfigError, collectProblems, type Env, freePort } from "@platform/core";
import { type GatewayConfig, readGatewayConfig } from "@platform/gateway";
import { type GraphqlConfig, readGraphqlConfig } from "@platform/graphql";
import { type BackendConfig, metagameEngineEnv, readBackendConfig } from "@platform/metagame";
import { configuredPort, firstSet, type LocalEnv, localEnv, metagameJwtSecrets, NAMES } from "./env.js";
import { API_KEY_ISSUER, type LocalSecrets, resolveLocalSecrets } from "./secrets.js";
import { readStartSettings, type StartSettings } from "./settings.js";

export { readStartSettings, type StartSettings } from "./settings.js";

export type GraphqlAuthMode = "webhook" | "jwt" | "own";

export interface StartPlan {
  settings: StartSettings;
  secrets: LocalSecrets;
  local: LocalEnv;
  catalog: CatalogConfig;
  auth: AuthConfig;
  graphql: GraphqlConfig;
  gateway: GatewayConfig;
  metagame: BackendConfig;
  /** How the engine authenticates: the backend's webhook, JWTs (METAGAME_AUTH=jwt), or the user's own HASURA_GRAPHQL_* settings. */
  graphqlAuth: GraphqlAuthMode;
  /** HASURA_GRAPHQL_JWT_SECRETS as npm start wires it in JWT mode; null otherwise. */
  graphqlJwtSecrets: unknown[] | null;
}

/** How this process reaches a service listening on `host`. */
const reach = (host: string, port: number) =>
  `http://${host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host}:${port}`;

const portOr = async (port: number) => (port === 0 ? freePort() : port);

/** The user's own engine authentication settings win over METAGAME_AUTH. */
function authMode(env: Env, settings: StartSettings): GraphqlAuthMode {
  return NAMES.graphqlAuth.some((name) => (env[name] ?? "").trim() !== "") ? "own" : settings.graphqlAuth;
}

export async function planStart(env: Env, cwd = process.cwd()): Promise<StartPlan> {
  const settings = readStartSettings(env, cwd);
  const mode = authMode(env, settings);
  const secrets = await resolveLocalSecrets(env, settings.dataDir);
  const ports = {
    gateway: await portOr(configuredPort(env, NAMES.gatewayPort, 54321)),
    auth: await portOr(configuredPort(env, NAMES.authPort, 8081)),
    graphql: await portOr(configuredPort(env, NAMES.graphqlPort, 8080)),
    catalog: await portOr(configuredPort(env, NAMES.catalogPort, 5634)),
    metagame: await portOr(configuredPort(env, NAMES.metagamePort, 4000)),
  };
  const local = localEnv(env, secrets, settings.dataDir, ports);
  const problems: string[] = [];
  const catalog = collectProblems(problems, () => readCatalogConfig(local.env, cwd));
  const auth = collectProblems(problems, () => readAuthConfig(local.env));

  const serviceEnv: Record<string, string | undefined> = { ...local.env };
  const backendUrl = reach(firstSet(local.env, NAMES.metagameHost) ?? "127.0.0.1", ports.metagame);
  // The project's files and its backend's URLs, where the user has not set them.
  for (const [name, value] of Object.entries(metagameEngineEnv(backendUrl, { webhook: mode === "webhook" }))) {
    if (!(env[name] ?? "").trim()) serviceEnv[name] = value;
  }
  let wired: unknown[] | null = null;
  if (auth && mode === "jwt") {
    const jwtSecrets = metagameJwtSecrets(
      {
        jwksUrl: `${reach(auth.api.host, ports.auth)}/.well-known/jwks.json`,
        issuer: auth.jwt.issuer,
        algorithm: auth.jwt.algorithm,
        secret: auth.jwt.secret ?? secrets.jwtSecret.value,
      },
      API_KEY_ISSUER,
    );
    serviceEnv.HASURA_GRAPHQL_JWT_SECRETS = JSON.stringify(jwtSecrets);
    // A request with no token at all reads what the public may.
    if (!(env.HASURA_GRAPHQL_UNAUTHORIZED_ROLE ?? "").trim()) serviceEnv.HASURA_GRAPHQL_UNAUTHORIZED_ROLE = "public";
    wired = jwtSecrets;
  }
  const graphql = collectProblems(problems, () => readGraphqlConfig(serviceEnv));
  if (auth && graphql) {
    // The backend calls the engine as admin, and its webhook verifies the auth service's tokens.
    const backendDefaults: Record<string, string> = {
      METAGAME_GRAPHQL_URL: `${reach(graphql.host, ports.graphql)}/v1/graphql`,
      AUTH_JWKS_URL: `${reach(auth.api.host, ports.auth)}/.well-known/jwks.json`,
    };
    for (const [name, value] of Object.entries(backendDefaults)) if (!(env[name] ?? "").trim()) serviceEnv[name] = value;
  }
  const metagame = collectProblems(problems, () => readBackendConfig(serviceEnv));
  const upstreams = [
    ["GATEWAY_AUTH_URL", auth?.api.host, ports.auth],
    ["GATEWAY_GRAPHQL_URL", graphql?.host, ports.graphql],
    ["GATEWAY_CATALOG_URL", catalog?.host, ports.catalog],
  ] as const;
  for (const [name, host, port] of upstreams) {
    if (!(env[name] ?? "").trim()) serviceEnv[name] = reach(host ?? "127.0.0.1", port);
  }
  const gateway = collectProblems(problems, () => readGatewayConfig(serviceEnv));
  if (problems.length > 0 || !catalog || !auth || !graphql || !gateway || !metagame) throw new ConfigError(problems);
  return { settings, secrets, local, catalog, auth, graphql, gateway, metagame, graphqlAuth: mode, graphqlJwtSecrets: wired };
}

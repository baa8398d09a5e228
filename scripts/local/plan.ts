/**
 * Everything `npm start` runs, decided before anything starts: the start settings, the local
 * secrets, free ports where 0 was asked for, and each service's configuration read from the
 * completed environment. Every problem of every service is reported in one ConfigError.
 */
import { type AuthConfig, readAuthConfig } from "@platform/auth";
import { type CatalogConfig, readCatalogConfig } from "@platform/catalog";
import { ConfigError, collectProblems, type Env, freePort } from "@platform/core";
import { type GatewayConfig, readGatewayConfig } from "@platform/gateway";
import { type GraphqlConfig, readGraphqlConfig } from "@platform/graphql";
import { configuredPort, graphqlJwtSecrets, type LocalEnv, localEnv, NAMES } from "./env.js";
import { API_KEY_ISSUER, type LocalSecrets, resolveLocalSecrets } from "./secrets.js";
import { readStartSettings, type StartSettings } from "./settings.js";

export { readStartSettings, type StartSettings } from "./settings.js";

export interface StartPlan {
  settings: StartSettings;
  secrets: LocalSecrets;
  local: LocalEnv;
  catalog: CatalogConfig;
  auth: AuthConfig;
  graphql: GraphqlConfig;
  gateway: GatewayConfig;
  /** HASURA_GRAPHQL_JWT_SECRETS as npm start wires it; null when the user configured the engine's auth. */
  graphqlJwtSecrets: unknown[] | null;
}

/** How this process reaches a service listening on `host`. */
const reach = (host: string, port: number) =>
  `http://${host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host}:${port}`;

const portOr = async (port: number) => (port === 0 ? freePort() : port);

export async function planStart(env: Env, cwd = process.cwd()): Promise<StartPlan> {
  const settings = readStartSettings(env, cwd);
  const secrets = await resolveLocalSecrets(env, settings.dataDir);
  const ports = {
    gateway: await portOr(configuredPort(env, NAMES.gatewayPort, 54321)),
    auth: await portOr(configuredPort(env, NAMES.authPort, 8081)),
    graphql: await portOr(configuredPort(env, NAMES.graphqlPort, 8080)),
    catalog: await portOr(configuredPort(env, NAMES.catalogPort, 5634)),
  };
  const local = localEnv(env, secrets, settings.dataDir, ports);
  const problems: string[] = [];
  const catalog = collectProblems(problems, () => readCatalogConfig(local.env, cwd));
  const auth = collectProblems(problems, () => readAuthConfig(local.env));

  const serviceEnv: Record<string, string | undefined> = { ...local.env };
  let wired: unknown[] | null = null;
  if (auth && !NAMES.graphqlAuth.some((name) => (env[name] ?? "").trim() !== "")) {
    const roles = [...new Set(["anon", "authenticated", auth.jwt.defaultGroupName])];
    const jwtSecrets = graphqlJwtSecrets(
      {
        jwksUrl: `${reach(auth.api.host, ports.auth)}/.well-known/jwks.json`,
        issuer: auth.jwt.issuer,
        algorithm: auth.jwt.algorithm,
        secret: auth.jwt.secret,
        roles,
      },
      API_KEY_ISSUER,
    );
    serviceEnv.HASURA_GRAPHQL_JWT_SECRETS = JSON.stringify(jwtSecrets);
    wired = jwtSecrets;
  }
  const graphql = collectProblems(problems, () => readGraphqlConfig(serviceEnv));
  const upstreams = [
    ["GATEWAY_AUTH_URL", auth?.api.host, ports.auth],
    ["GATEWAY_GRAPHQL_URL", graphql?.host, ports.graphql],
    ["GATEWAY_CATALOG_URL", catalog?.host, ports.catalog],
  ] as const;
  for (const [name, host, port] of upstreams) {
    if (!(env[name] ?? "").trim()) serviceEnv[name] = reach(host ?? "127.0.0.1", port);
  }
  const gateway = collectProblems(problems, () => readGatewayConfig(serviceEnv));
  if (problems.length > 0 || !catalog || !auth || !graphql || !gateway) throw new ConfigError(problems);
  return { settings, secrets, local, catalog, auth, graphql, gateway, graphqlJwtSecrets: wired };
}

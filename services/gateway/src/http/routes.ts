/**
 * What the gateway serves, Supabase's paths first (https://supabase.com/docs/guides/api):
 * `/auth/v1/*` to auth with the prefix stripped (verify, callback, authorize and the JWKS
 * without a key, the rest behind key-auth), `/graphql/v1` to the GraphQL engine's
 * `/v1/graphql` behind key-auth; Hasura's own paths to the engine unchanged (its clients bring
 * their own credentials); the catalog under `/catalog/*`.
 */
export type Service = "auth" | "graphql" | "catalog";

export interface ProxyRoute {
  service: Service;
  /** Path prefix at the gateway. */
  prefix: string;
  /** What the prefix becomes upstream. */
  rewritePrefix: string;
  /** Whether a request under this prefix needs an API key (per path below the prefix). */
  needsKey(pathBelowPrefix: string): boolean;
  /** Sent upstream as X-Forwarded-Prefix when the prefix is stripped. */
  forwardedPrefix?: string;
  /** WebSocket upgrades are proxied too (GraphQL subscriptions on `/graphql/v1` and Hasura's `/v1/graphql`). */
  websocket?: boolean;
}

/** Auth routes Supabase's gateway leaves open: links opened from mail, OAuth redirects, the public keys. */
const OPEN_AUTH_PATHS = ["/verify", "/callback", "/authorize", "/.well-known/jwks.json", "/sso/saml/acs", "/sso/saml/metadata"];

export function isOpenAuthPath(path: string): boolean {
  return OPEN_AUTH_PATHS.some((open) => path === open || path.startsWith(`${open}/`) || path.startsWith(`${open}?`));
}

const always = () => true;
const never = () => false;

/** Hasura GraphQL Engine's own endpoints: /v1/graphql, /v1/metadata, /v2/query, /v1/query, /v1/version, ... */
const HASURA_PREFIXES = ["/v1", "/v2", "/v1alpha1", "/v1beta1", "/console", "/healthz"];

export const ROUTES: ProxyRoute[] = [
  { service: "auth", prefix: "/auth/v1", rewritePrefix: "", needsKey: (path) => !isOpenAuthPath(path), forwardedPrefix: "/auth/v1" },
  {
    service: "graphql",
    prefix: "/graphql/v1",
    rewritePrefix: "/v1/graphql",
    needsKey: always,
    forwardedPrefix: "/graphql/v1",
    websocket: true,
  },
  ...HASURA_PREFIXES.map(
    (prefix): ProxyRoute => ({ service: "graphql", prefix, rewritePrefix: prefix, needsKey: never, websocket: prefix === "/v1" }),
  ),
  { service: "catalog", prefix: "/catalog", rewritePrefix: "", needsKey: never, forwardedPrefix: "/catalog" },
];

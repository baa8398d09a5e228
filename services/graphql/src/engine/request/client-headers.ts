/**
 * The client's headers that the engine may pass on to an action handler or a remote schema
 * (with `forward_client_headers`), as Hasura's mkClientHeadersForward picks them
 * (server/src-lib/Hasura/Server/Utils.hs): every header but the common ones it drops
 * (commonClientHeadersIgnored) and the `x-hasura-*` ones (session variables, the admin secret),
 * plus `X-Forwarded-Host`, `X-Forwarded-User-Agent` and `X-Forwarded-Origin` from the client's
 * `Host`, `User-Agent` and `Origin`.
 */

/** Headers Hasura never forwards (commonClientHeadersIgnored). */
export const NOT_FORWARDED: ReadonlySet<string> = new Set([
  "content-length",
  "content-md5",
  "user-agent",
  "host",
  "origin",
  "referer",
  "accept",
  "accept-encoding",
  "accept-language",
  "accept-datetime",
  "cache-control",
  "connection",
  "dnt",
  "content-type",
]);

const FORWARDED_AS: Record<string, string> = {
  host: "X-Forwarded-Host",
  "user-agent": "X-Forwarded-User-Agent",
  origin: "X-Forwarded-Origin",
};

/** The headers of `client` (any name case) that may be forwarded, in order, then the X-Forwarded-* ones. */
export function forwardableHeaders(client: Record<string, string>): Array<[string, string]> {
  const forwarded: Array<[string, string]> = [];
  const extra: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(client)) {
    const lower = name.toLowerCase();
    const as = FORWARDED_AS[lower];
    if (as) extra.push([as, value]);
    if (NOT_FORWARDED.has(lower) || lower.startsWith("x-hasura-")) continue;
    forwarded.push([name, value]);
  }
  return [...forwarded, ...extra];
}

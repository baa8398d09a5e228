/**
 * Redirects a service makes to itself with an absolute URL (the catalog's trailing-slash 307,
 * built from the Host it was sent) would lead the client past the gateway to the service's own
 * address. As nginx's `proxy_redirect default` does, such a Location is rewritten to the
 * gateway's origin and prefix. Relative ones are handled by @fastify/http-proxy itself, and
 * redirects elsewhere (auth's redirect_to, an OAuth provider) are left alone.
 */
import type { IncomingHttpHeaders } from "node:http";

export interface RedirectContext {
  /** The service's base URL, as the gateway reaches it. */
  upstream: string;
  /** The path prefix at the gateway and what it becomes upstream. */
  prefix: string;
  rewritePrefix: string;
  /** The request as the gateway received it. */
  protocol: string;
  host: string | undefined;
}

export function gatewayLocation(location: string, context: RedirectContext): string {
  let target: URL;
  try {
    target = new URL(location);
  } catch {
    return location;
  }
  const upstream = new URL(context.upstream);
  const toService = target.host === upstream.host || (context.host !== undefined && target.host === context.host);
  if (!toService || !context.host || !target.pathname.startsWith(context.rewritePrefix)) return location;
  const path = `${context.prefix}${target.pathname.slice(context.rewritePrefix.length)}` || "/";
  return `${context.protocol}://${context.host}${path}${target.search}${target.hash}`;
}

export function withGatewayLocation(headers: IncomingHttpHeaders, context: RedirectContext): IncomingHttpHeaders {
  const location = headers.location;
  if (typeof location !== "string") return headers;
  return { ...headers, location: gatewayLocation(location, context) };
}

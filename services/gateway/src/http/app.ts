/**
 * The gateway: one port in front of the services, Supabase's conventions (see routes.ts),
 * proxied with @fastify/http-proxy (request and response bodies streamed, never buffered).
 */

import type { IncomingHttpHeaders } from "node:http";
import proxy, { type FastifyHttpProxyOptions } from "@fastify/http-proxy";
import { createHttpApp, type Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { type ApiKeys, apiKeyOf, KeyRing } from "./api-keys.js";
import { registerCors, withoutCorsHeaders } from "./cors.js";
import { gatewayErrors, renderGatewayError, renderInternal } from "./errors.js";
import { withGatewayLocation } from "./redirects.js";
import { type ProxyRoute, ROUTES, type Service } from "./routes.js";

export interface GatewayOptions {
  upstreams: Record<Service, string>;
  keys: ApiKeys;
  corsOrigins: string[];
  upstreamTimeoutMs: number;
  logger: Logger;
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "FST_REPLY_FROM_GATEWAY_TIMEOUT"]);

function pathBelow(url: string, prefix: string): string {
  const path = url.slice(prefix.length);
  return path === "" || path.startsWith("?") ? `/${path}` : path;
}

/** The parts of a request the proxy hooks read (the plugin's hooks are typed for HTTP/1 and HTTP/2). */
interface IncomingRequest {
  url: string;
  ip: string;
  headers: IncomingHttpHeaders;
}

function forwardedFor(request: IncomingRequest): string {
  const previous = request.headers["x-forwarded-for"];
  return typeof previous === "string" && previous !== "" ? `${previous}, ${request.ip}` : request.ip;
}

function registerRoute(app: FastifyInstance, route: ProxyRoute, upstream: string, keys: KeyRing, options: GatewayOptions): void {
  const keyed = (request: IncomingRequest) => keys.enforcing && route.needsKey(pathBelow(request.url, route.prefix));
  /** What the service is told of the request, HTTP or WebSocket upgrade alike. */
  const forwarded = (request: IncomingRequest & { protocol: string; id: string }, headers: IncomingHttpHeaders) => {
    const out: IncomingHttpHeaders = {
      ...headers,
      "x-forwarded-for": forwardedFor(request),
      // The peer as this gateway saw it, replacing whatever a client sent: the GraphQL engine
      // keys its per-IP rate limits on it, as Hasura reads X-Real-IP first.
      "x-real-ip": request.ip,
      "x-forwarded-proto": request.protocol,
      "x-forwarded-host": request.headers.host,
      "x-request-id": request.id,
    };
    if (route.forwardedPrefix) out["x-forwarded-prefix"] = route.forwardedPrefix;
    if (keyed(request)) {
      const current = typeof request.headers.authorization === "string" ? request.headers.authorization : undefined;
      out.authorization = keys.authorization(current, apiKeyOf(request.headers, request.url));
    }
    return out;
  };
  const settings: FastifyHttpProxyOptions = {
    upstream,
    prefix: route.prefix,
    rewritePrefix: route.rewritePrefix,
    // A 503 is the service's answer (the catalog while its database is away), not a reason to ask again.
    retryMethods: [],
    disableRequestLogging: true,
    undici: { headersTimeout: options.upstreamTimeoutMs, bodyTimeout: options.upstreamTimeoutMs },
    preHandler: async (request) => {
      if (keyed(request)) keys.check(apiKeyOf(request.headers, request.url));
    },
    // A WebSocket upgrade goes through the route's preHandler (the key check) like a request; the
    // socket to the service offers the client's subprotocol and carries the same headers.
    ...(route.websocket
      ? {
          websocket: true,
          // The plugin reads `rewriteRequestHeaders` here (its typings leave it out).
          wsClientOptions: {
            rewriteRequestHeaders: (_headers: Record<string, unknown>, request: IncomingRequest & { protocol: string; id: string }) => {
              const { host: _host, connection: _connection, upgrade: _upgrade, ...client } = request.headers;
              const out = forwarded(request, client);
              for (const name of Object.keys(out)) if (name.startsWith("sec-websocket-")) delete out[name];
              return out;
            },
          } as FastifyHttpProxyOptions["wsClientOptions"],
        }
      : {}),
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => forwarded(request, headers),
      rewriteHeaders: (headers, request) =>
        withoutCorsHeaders(
          withGatewayLocation(headers, {
            upstream,
            prefix: route.prefix,
            rewritePrefix: route.rewritePrefix,
            protocol: request?.protocol ?? "http",
            host: request?.headers.host,
          }),
        ),
      onError: (reply, { error }) => {
        const code = (error as { code?: string }).code;
        const timedOut = TIMEOUT_CODES.has(code ?? "");
        reply.log.warn({ upstream: route.service, code, reason: error.message }, `${route.service} did not answer`);
        const failure = timedOut ? gatewayErrors.upstreamTimeout(error) : gatewayErrors.upstreamFailed(error);
        const { status, body } = renderGatewayError(failure);
        reply.code(status).type("application/json").send(body);
      },
    },
  };
  app.register(proxy, settings);
}

export function buildGatewayApp(options: GatewayOptions): FastifyInstance {
  const app = createHttpApp({
    logger: options.logger,
    // Bodies are streamed to the services, which enforce their own limits (as Kong leaves it to them).
    fastify: { bodyLimit: 1024 * 1024 * 1024 },
    renderError: (error) => renderGatewayError(error),
    renderInternal: (id) => renderInternal(id),
  });
  registerCors(app, options.corsOrigins);
  const keys = new KeyRing(options.keys);
  for (const route of ROUTES) registerRoute(app, route, options.upstreams[route.service], keys, options);
  // Hasura's quick start opens the console at the root URL.
  app.get("/", async (_request, reply) => reply.redirect("/console", 302));
  app.setNotFoundHandler(async () => {
    throw gatewayErrors.noRoute();
  });
  return app;
}

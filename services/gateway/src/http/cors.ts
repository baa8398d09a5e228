/**
 * CORS at the gateway, for every route (Kong's cors plugin): preflights are answered here
 * without reaching a service or a key check, and the services' own CORS headers are replaced by
 * the gateway's so a browser sees one consistent answer.
 */
import type { FastifyInstance } from "fastify";

const METHODS = "GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS";
const DEFAULT_HEADERS =
  "Accept, Authorization, Content-Type, apikey, x-client-info, X-Supabase-Api-Version, x-hasura-admin-secret, x-hasura-role";
const EXPOSED = "X-Total-Count, Link, X-Supabase-Api-Version, X-Request-Id, Content-Range";

export function registerCors(app: FastifyInstance, origins: string[]): void {
  const any = origins.includes("*");
  const allowed = new Set(origins);
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || (!any && !allowed.has(origin))) return;
    reply.header("access-control-allow-origin", origin);
    reply.header("access-control-allow-credentials", "true");
    reply.header("access-control-expose-headers", EXPOSED);
    reply.header("vary", "Origin");
    if (request.method !== "OPTIONS" || !request.headers["access-control-request-method"]) return;
    const requested = request.headers["access-control-request-headers"];
    reply.header("access-control-allow-methods", METHODS);
    reply.header("access-control-allow-headers", typeof requested === "string" && requested !== "" ? requested : DEFAULT_HEADERS);
    reply.header("access-control-max-age", "3600");
    return reply.code(204).send();
  });
}

/** Drops a service's own CORS headers from its response (the gateway sets its own). */
export function withoutCorsHeaders<H extends Record<string, unknown>>(headers: H): H {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (!name.toLowerCase().startsWith("access-control-")) out[name] = value;
  return out as H;
}

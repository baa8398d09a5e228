/**
 * CORS as Hasura does it (HASURA_GRAPHQL_CORS_DOMAIN, default `*`): the request's origin is
 * echoed when allowed, credentials are allowed, preflights answer 204.
 */
import type { FastifyInstance } from "fastify";

export interface CorsConfig {
  disabled: boolean;
  /** `*`, or a list of origins where `*` may stand for one subdomain/port label (`https://*.foo.com`). */
  domains: string[];
}

function matcher(domains: string[]): (origin: string) => boolean {
  if (domains.includes("*")) return () => true;
  const patterns = domains.map(
    (d) =>
      new RegExp(
        `^${d
          .trim()
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^.:/]+")}$`,
        "i",
      ),
  );
  return (origin) => patterns.some((p) => p.test(origin));
}

export function parseCorsDomains(raw: string | undefined): string[] {
  return (raw ?? "*")
    .split(",")
    .map((d) => d.trim())
    .filter(Boolean);
}

export function registerCors(app: FastifyInstance, config: CorsConfig): void {
  if (config.disabled) return;
  const allowed = matcher(config.domains);
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !allowed(origin)) return;
    reply.header("access-control-allow-origin", origin);
    reply.header("access-control-allow-credentials", "true");
    reply.header("vary", "Origin");
    if (request.method === "OPTIONS") {
      reply.header("access-control-allow-methods", "GET,POST,PUT,PATCH,DELETE,OPTIONS");
      reply.header("access-control-allow-headers", request.headers["access-control-request-headers"] ?? "*");
      reply.header("access-control-max-age", "1728000");
      return reply.code(204).send();
    }
  });
}

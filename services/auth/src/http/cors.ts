/**
 * CORS as GoTrue answers it: every origin, with credentials, and the headers Supabase clients
 * send; preflight requests are answered here.
 */
import type { FastifyInstance } from "fastify";

const ALLOWED_HEADERS =
  "Accept, Authorization, Content-Type, X-Client-IP, X-Client-Info, X-JWT-AUD, x-use-cookie, X-Supabase-Api-Version, apikey";
const EXPOSED_HEADERS = "X-Total-Count, Link, X-Supabase-Api-Version";

export function registerCors(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin) return;
    reply.header("access-control-allow-origin", origin);
    reply.header("access-control-allow-credentials", "true");
    reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    reply.header("vary", "Origin");
    if (request.method !== "OPTIONS" || !request.headers["access-control-request-method"]) return;
    reply.header("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
    const requested = request.headers["access-control-request-headers"];
    reply.header("access-control-allow-headers", typeof requested === "string" && requested !== "" ? requested : ALLOWED_HEADERS);
    reply.header("access-control-max-age", "86400");
    return reply.code(204).send();
  });
}

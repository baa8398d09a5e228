/**
 * CORS for browsers on other origins (https://fetch.spec.whatwg.org/#http-cors-protocol), with
 * @fastify/cors. Only a real preflight (OPTIONS with Origin and Access-Control-Request-Method) is
 * answered here; any other OPTIONS request reaches the routes and gets their 405, as with
 * Starlette's CORSMiddleware. Without origins nothing is registered.
 */
import cors from "@fastify/cors";
import type { FastifyInstance, FastifyRequest } from "fastify";

/** Response headers scripts may read besides the safelisted ones (routes.ts, core's createHttpApp). */
export const EXPOSED_HEADERS = ["X-Request-Id"];
export const CORS_METHODS = ["GET", "HEAD", "OPTIONS"];
/** Starlette's CORSMiddleware default. */
const MAX_AGE_SECONDS = 600;

const isPreflight = (request: FastifyRequest): boolean =>
  request.method === "OPTIONS" && request.headers.origin !== undefined && request.headers["access-control-request-method"] !== undefined;

/** `origins`: `["*"]` for any origin, a list of exact origins, or `[]` for no CORS. */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const origin = origins.includes("*") ? "*" : [...origins];
  await app.register(cors, {
    delegator: async (request: FastifyRequest) => ({
      origin,
      methods: CORS_METHODS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: MAX_AGE_SECONDS,
      preflight: isPreflight(request),
    }),
  });
}

import type { FastifyRequest } from "fastify";

/**
 * The client's address as Hasura reads it for rate limits by `IP` (getSourceFromFallback in
 * server/src-lib/Hasura/Server/Logging.hs): the whole value of `X-Real-IP` or else
 * `X-Forwarded-For`, set by the proxy in front; the connection's peer when neither is there. A
 * client that reaches the engine directly can set them itself: expose it only behind a proxy
 * that overwrites them (the platform's gateway sets `X-Real-IP`).
 */
export function clientAddress(request: Pick<FastifyRequest, "headers" | "ip">): string {
  for (const name of ["x-real-ip", "x-forwarded-for"]) {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (text) return text;
  }
  return request.ip;
}

/**
 * The request facts the domain uses. The client address is read from a header only when the
 * operator says it is trustworthy: Pf-Forwarded-For with SECURITY_PF_FORWARDED_FOR_ENABLED, or
 * the header named by RATE_LIMIT_HEADER; otherwise it is the socket's address.
 */
import { isIP } from "node:net";
import type { FastifyRequest } from "fastify";
import type { AuthConfig } from "../config.js";
import type { RequestMeta } from "../domain/context.js";
import { checkFitsColumn } from "../domain/identifiers.js";

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}

/** The first comma-separated value of a trusted header, or undefined when there is none. */
export function trustedClientKey(request: FastifyRequest, config: AuthConfig): string | undefined {
  const name = config.security.pfForwardedForEnabled ? "pf-forwarded-for" : config.rateLimit.header;
  if (!name) return undefined;
  return header(request, name)?.split(",")[0]?.trim() || undefined;
}

export function requestMeta(request: FastifyRequest, config: AuthConfig): RequestMeta {
  const candidate = trustedClientKey(request, config) ?? request.ip;
  const audience = header(request, "x-jwt-aud");
  // The audience ends up in users.aud.
  checkFitsColumn("X-JWT-AUD", audience);
  return {
    ip: candidate && isIP(candidate) ? candidate : undefined,
    userAgent: header(request, "user-agent"),
    audience,
  };
}

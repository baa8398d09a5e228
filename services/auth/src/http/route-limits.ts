/**
 * GoTrue's per-route request limits (internal/api/api.go and internal/api/apilimiter in
 * supabase/auth), keyed on the trusted client key as the /token limit is (RATE_LIMIT_HEADER, or
 * Pf-Forwarded-For; a request without one is not limited, as in GoTrue):
 * - RATE_LIMIT_VERIFY (30): GET and POST /verify, one bucket for both methods;
 * - RATE_LIMIT_OTP (30): POST /otp, /magiclink, /recover, /resend and /signup (not anonymous
 *   sign-ups) and PUT /user, a bucket of its own for each route;
 * - MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY (15 per minute): POST /factors/{id}/challenge and
 *   /factors/{id}/verify, a bucket each.
 * Each is a bucket of 30 requests per key that earns N back per five minutes (rate-limit.ts). A
 * refused request answers 429 over_request_rate_limit.
 *
 * The limits are looked up by method and route path when a request has been routed, so a listed
 * route is limited as soon as it is registered. The limit is taken before the body is read
 * (GoTrue's middleware runs first), except for /signup, which needs the body to tell an anonymous
 * sign-up: there it is taken once the body has been parsed and validated, as GoTrue does.
 * One difference: GoTrue authenticates PUT /user before its limit, while here the hook cannot
 * authenticate, so a PUT /user with a bad token also takes from the bucket of its key.
 */
import type { Logger } from "@platform/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import type { AuthConfig } from "../config.js";
import { errors } from "../domain/errors.js";
import { createRequestLimiter, type Limiter, requestBucket } from "./rate-limit.js";
import { trustedClientKey } from "./request-meta.js";

type Stage = "onRequest" | "preHandler";

interface RouteLimit {
  limiter: Limiter;
  stage: Stage;
  /** When given, only requests it accepts are limited. */
  applies?: (request: FastifyRequest) => boolean;
}

/** `METHOD /path` (Fastify's route path) to its limit. */
export type RouteLimits = ReadonlyMap<string, RouteLimit>;

const filled = (value: unknown) => typeof value === "string" && value !== "";

/** GoTrue sends a /signup without email and phone to the anonymous sign-in, which RATE_LIMIT_OTP does not cover. */
const notAnonymous = (request: FastifyRequest) => {
  const body = (request.body ?? {}) as Record<string, unknown>;
  return filled(body.email) || filled(body.phone);
};

/** The request limiters of every limited route; each bucket is its own Redis key prefix under `keyPrefix`. */
export function createRouteLimits(
  limits: AuthConfig["rateLimit"],
  options: { keyPrefix: string; redis?: Redis | undefined; logger: Pick<Logger, "warn"> },
  mfaPerMinute = 15,
): RouteLimits {
  const limiter = (name: string, perFiveMinutes: number) =>
    createRequestLimiter(requestBucket(perFiveMinutes), { ...options, keyPrefix: `${options.keyPrefix}:${name}` });
  const verify = limiter("verify", limits.verify);
  const otp = (name: string) => limiter(`otp:${name}`, limits.otp);
  return new Map<string, RouteLimit>([
    ["POST /factors/:factor_id/challenge", { limiter: limiter("mfa:challenge", mfaPerMinute * 5), stage: "onRequest" }],
    ["POST /factors/:factor_id/verify", { limiter: limiter("mfa:verify", mfaPerMinute * 5), stage: "onRequest" }],
    ["GET /verify", { limiter: verify, stage: "onRequest" }],
    ["POST /verify", { limiter: verify, stage: "onRequest" }],
    ["POST /otp", { limiter: otp("otp"), stage: "onRequest" }],
    ["POST /magiclink", { limiter: otp("magiclink"), stage: "onRequest" }],
    ["POST /recover", { limiter: otp("recover"), stage: "onRequest" }],
    ["POST /resend", { limiter: otp("resend"), stage: "onRequest" }],
    ["POST /signup", { limiter: otp("signup"), stage: "preHandler", applies: notAnonymous }],
    ["PUT /user", { limiter: otp("user"), stage: "onRequest" }],
  ]);
}

/** Adds the hooks that apply `limits` to the routes they name. */
export function registerRouteLimits(app: FastifyInstance, config: AuthConfig, limits: RouteLimits): void {
  const check = (stage: Stage) => async (request: FastifyRequest) => {
    const path = request.routeOptions.url;
    if (path === undefined) return;
    const limit = limits.get(`${request.method} ${path}`);
    if (!limit || limit.stage !== stage) return;
    if (limit.applies && !limit.applies(request)) return;
    const key = trustedClientKey(request, config);
    if (key === undefined) return;
    if (!(await limit.limiter.allow(key))) throw errors.rateLimited();
  };
  app.addHook("onRequest", check("onRequest"));
  app.addHook("preHandler", check("preHandler"));
}

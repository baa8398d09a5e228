/**
 * The /token rate limit, keyed on the trusted client header (RATE_LIMIT_HEADER, or
 * Pf-Forwarded-For): RATE_LIMIT_TOKEN_REFRESH requests per five minutes per key. Counters live in
 * memory, or in Redis when AUTH_REDIS_URL is set so every instance shares them; if Redis cannot
 * be reached, each instance falls back to its own memory counters.
 */
import { createRateLimiter } from "@platform/core";
import type { Redis } from "ioredis";
import { RateLimiterRes } from "rate-limiter-flexible";

export const TOKEN_WINDOW_SECONDS = 300;

export interface Limiter {
  /** True when the request may go ahead. */
  allow(key: string): Promise<boolean>;
}

export function createLimiter(options: { points: number; keyPrefix: string; redis?: Redis | undefined }): Limiter {
  const limiter = createRateLimiter({ ...options, duration: TOKEN_WINDOW_SECONDS });
  return {
    async allow(key) {
      try {
        await limiter.consume(key);
        return true;
      } catch (outcome) {
        if (outcome instanceof RateLimiterRes) return false;
        throw outcome;
      }
    },
  };
}

/**
 * Rate-limit counters shared by the services (rate-limiter-flexible): in this process's memory,
 * or in Redis so that every instance shares them. When Redis cannot be reached, each instance
 * falls back to its own memory counters (the insurance limiter) rather than refusing or letting
 * everything through.
 */
import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import type { Logger } from "./logger.js";

export interface RateLimiterOptions {
  points: number;
  /** The window, in seconds. */
  duration: number;
  keyPrefix: string;
  redis?: Redis | undefined;
}

/** A limiter over Redis when one is given (memory while it is unreachable), else in memory. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiterAbstract {
  const base = { points: options.points, duration: options.duration, keyPrefix: options.keyPrefix };
  if (!options.redis) return new RateLimiterMemory(base);
  return new RateLimiterRedis({
    ...base,
    storeClient: options.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(base),
  });
}

/** Waits up to `ms` for the Redis connection; false when it is not ready by then. */
function ready(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * A Redis connection for rate-limit counters: commands fail at once while it is down (the
 * limiters then count in memory), each failure is logged as a warning, and start-up waits up to
 * two seconds for it, saying so when it is not there yet.
 */
export async function connectRateLimitRedis(url: string, logger: Pick<Logger, "warn">): Promise<Redis> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on("error", (error: Error) => logger.warn({ err: error.message }, "redis unavailable: rate limits use this instance's memory"));
  if (!(await ready(redis, 2_000)))
    logger.warn({ host: new URL(url).host }, "redis not reachable yet: rate limits use this instance's memory until it is");
  return redis;
}

/**
 * Requests per client per minute, for the `rate_limit` API limit: rate-limiter-flexible counters
 * in this process's memory, or in Redis (HASURA_GRAPHQL_RATE_LIMIT_REDIS_URL, as Hasura EE reads
 * it) so every instance shares them; when Redis cannot be reached, each instance falls back to
 * its own memory counters rather than refusing or letting everything through.
 *
 * One counter serves every limit: it never refuses by itself and reports how many requests the
 * key made in its window, which the caller compares with the role's `max_reqs_per_min` (so a
 * limit changed in metadata applies at once, without new counters). Windows are fixed minutes
 * starting at a key's first request; Hasura describes its window as sliding, which lets a client
 * burst at most twice the limit across a window boundary here.
 */
import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";

export const WINDOW_SECONDS = 60;

/** More requests than any limit: the counter itself never refuses. */
const UNBOUNDED = 2 ** 31 - 1;

export class RateCounter {
  private readonly limiter: RateLimiterAbstract;

  constructor(options: { redis?: Redis | undefined; keyPrefix?: string } = {}) {
    const base = { points: UNBOUNDED, duration: WINDOW_SECONDS, keyPrefix: options.keyPrefix ?? "graphql:api_limits" };
    this.limiter = options.redis
      ? new RateLimiterRedis({
          ...base,
          storeClient: options.redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(base),
        })
      : new RateLimiterMemory(base);
  }

  /** Counts one request of `key`; returns how many it made in its current window, this one included. */
  async count(key: string): Promise<number> {
    const result = await this.limiter.consume(key);
    return result.consumedPoints;
  }
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
 * A counter over Redis at `url` (memory counters until and whenever it is unreachable, with a
 * warning); close() disconnects.
 */
export async function redisRateCounter(
  url: string,
  log: { warn(obj: object, msg?: string): void },
  keyPrefix?: string,
): Promise<{ counter: RateCounter; redis: Redis; close(): void }> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on("error", (error: Error) => log.warn({ err: error.message }, "redis unavailable: rate limits use this instance's memory"));
  if (!(await ready(redis, 2_000))) log.warn({ url: new URL(url).host }, "redis not reachable yet: rate limits use this instance's memory");
  return { counter: new RateCounter({ redis, keyPrefix }), redis, close: () => redis.disconnect() };
}

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
import { connectRateLimitRedis, createRateLimiter, type Logger } from "@platform/core";
import type { Redis } from "ioredis";
import type { RateLimiterAbstract } from "rate-limiter-flexible";

export const WINDOW_SECONDS = 60;

/** More requests than any limit: the counter itself never refuses. */
const UNBOUNDED = 2 ** 31 - 1;

export class RateCounter {
  private readonly limiter: RateLimiterAbstract;

  constructor(options: { redis?: Redis | undefined; keyPrefix?: string } = {}) {
    this.limiter = createRateLimiter({
      points: UNBOUNDED,
      duration: WINDOW_SECONDS,
      keyPrefix: options.keyPrefix ?? "graphql:api_limits",
      redis: options.redis,
    });
  }

  /** Counts one request of `key`; returns how many it made in its current window, this one included. */
  async count(key: string): Promise<number> {
    const result = await this.limiter.consume(key);
    return result.consumedPoints;
  }
}

/** A counter over Redis at `url` (memory counters until and whenever it is unreachable, with a warning); close() disconnects. */
export async function redisRateCounter(
  url: string,
  log: Pick<Logger, "warn">,
  keyPrefix?: string,
): Promise<{ counter: RateCounter; redis: Redis; close(): void }> {
  const redis = await connectRateLimitRedis(url, log);
  return { counter: new RateCounter({ redis, keyPrefix }), redis, close: () => redis.disconnect() };
}

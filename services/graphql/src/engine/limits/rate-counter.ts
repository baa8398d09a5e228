/**
 * Requests per client per minute, for the `rate_limit` API limit: rate-limiter-flexible counters
 * in this process's memory, or in Redis (HASURA_GRAPHQL_RATE_LIMIT_REDIS_URL, as Hasura EE reads
 * it) so every instance shares them; when Redis cannot be reached, each instance falls back to
 * its own memory counters rather than refusing or letting everything through.
 *
 * One counter serves every limit: it never refuses by itself and reports how many requests the
 * key made in the last minute, which the caller compares with the role's `max_reqs_per_min` (so
 * a limit changed in metadata applies at once, without new counters). The minute slides, as
 * Hasura describes its rate limit ("the rate of that client starting from the current time to
 * last one minute", https://hasura.io/docs/2.0/security/api-limits/): requests are counted in
 * clock-minute buckets, and the previous bucket's count is weighted by the part of it that is
 * still within the last sixty seconds (the sliding-window counter; it assumes the previous
 * minute's requests were spread evenly over it).
 */
import { connectRateLimitRedis, createRateLimiter, type Logger } from "@platform/core";
import type { Redis } from "ioredis";
import type { RateLimiterAbstract } from "rate-limiter-flexible";

export const WINDOW_SECONDS = 60;

/** More requests than any limit: the counter itself never refuses. */
const UNBOUNDED = 2 ** 31 - 1;

export class RateCounter {
  private readonly limiter: RateLimiterAbstract;
  private readonly now: () => number;

  constructor(options: { redis?: Redis | undefined; keyPrefix?: string; now?: () => number } = {}) {
    // Buckets live two windows: the previous minute's is still read during the current one.
    this.limiter = createRateLimiter({
      points: UNBOUNDED,
      duration: 2 * WINDOW_SECONDS,
      keyPrefix: options.keyPrefix ?? "graphql:api_limits",
      redis: options.redis,
    });
    this.now = options.now ?? Date.now;
  }

  /** Counts one request of `key`; returns how many it made in the last minute, this one included (an estimate, not a whole number). */
  async count(key: string): Promise<number> {
    const windowMs = WINDOW_SECONDS * 1000;
    const now = this.now();
    const bucket = Math.floor(now / windowMs);
    const [current, previous] = await Promise.all([this.limiter.consume(`${key}:${bucket}`), this.limiter.get(`${key}:${bucket - 1}`)]);
    const stillInWindow = 1 - (now - bucket * windowMs) / windowMs;
    // Not rounded: just past a minute's end, the requests of a moment ago still count (almost) whole.
    return current.consumedPoints + (previous?.consumedPoints ?? 0) * stillInWindow;
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

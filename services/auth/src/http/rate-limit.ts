/**
 * Rate-limit counters.
 *
 * Request limits (createRequestLimiter), shaped as GoTrue's (internal/api/apilimiter in
 * supabase/auth, tollbooth over golang.org/x/time/rate): per trusted client key (the
 * RATE_LIMIT_HEADER value, or Pf-Forwarded-For) a bucket of 30 requests, full at first, that
 * earns N back per five minutes: /token (RATE_LIMIT_TOKEN_REFRESH, N = 150) and the per-route
 * limits of route-limits.ts (RATE_LIMIT_VERIFY, RATE_LIMIT_OTP, N = 30). A key's bucket is
 * forgotten once it is full again, and at the latest an hour after its last request (GoTrue's
 * buckets live an hour).
 *
 * Send buckets (createSendBucket): RATE_LIMIT_EMAIL_SENT and RATE_LIMIT_SMS_SENT, one bucket for
 * all users, shaped as GoTrue's (internal/ratelimit in supabase/auth): `N` is N sends per fixed
 * one-hour window, `N/duration` a token bucket of N sends that earns one back per duration.
 *
 * Counters live in memory, or in Redis when AUTH_REDIS_URL is set so every instance shares them;
 * if Redis cannot be reached, each instance falls back to its own memory counters.
 */
import type { Logger } from "@platform/core";
import type { Redis } from "ioredis";
import type { Rate } from "../config.js";
import type { SendBucket } from "../domain/send-limits.js";

/** GoTrue's request limits: N requests per five minutes, a burst of 30 (internal/api/apilimiter). */
export const REQUEST_WINDOW_MS = 300_000;
export const REQUEST_BURST = 30;
/** GoTrue's tollbooth buckets expire an hour after they are made. */
const REQUEST_BUCKET_TTL_MS = 3_600_000;

export interface Limiter {
  /** True when the request may go ahead. */
  allow(key: string): Promise<boolean>;
}

/** A token bucket: `capacity` tokens, full at first, earning one back per `perMs`. */
interface Bucket {
  capacity: number;
  perMs: number;
}

interface BucketState {
  tokens: number;
  at: number;
}

/** The bucket's tokens at `now`, refilled since its state was written. */
function tokensAt(bucket: Bucket, state: BucketState | undefined, now: number): number {
  if (!state) return bucket.capacity;
  return now > state.at ? Math.min(bucket.capacity, state.tokens + (now - state.at) / bucket.perMs) : state.tokens;
}

/** Takes a token at `now` if there is one; answers whether it did and the state after. */
function takeToken(bucket: Bucket, state: BucketState | undefined, now: number): { taken: boolean; state: BucketState } {
  const tokens = tokensAt(bucket, state, now);
  const at = Math.max(now, state?.at ?? now);
  return tokens >= 1 ? { taken: true, state: { tokens: tokens - 1, at } } : { taken: false, state: { tokens, at } };
}

/** `events` per `windowMs` (0: none earned back), with a bucket of `burst`. */
export function requestBucket(events: number, windowMs = REQUEST_WINDOW_MS, burst = REQUEST_BURST): Bucket {
  return { capacity: burst, perMs: events > 0 ? windowMs / events : Number.MAX_SAFE_INTEGER };
}

/** One bucket per key, in this process's memory; full and long-idle buckets are dropped now and then. */
export function memoryRequestLimiter(bucket: Bucket, now: () => number = Date.now): Limiter {
  const states = new Map<string, BucketState>();
  let calls = 0;
  const sweep = (at: number) => {
    for (const [key, state] of states) {
      if (at - state.at >= REQUEST_BUCKET_TTL_MS || tokensAt(bucket, state, at) >= bucket.capacity) states.delete(key);
    }
  };
  return {
    async allow(key) {
      const at = now();
      if (++calls % 1024 === 0) sweep(at);
      const { taken, state } = takeToken(bucket, states.get(key), at);
      states.set(key, state);
      return taken;
    },
  };
}

/** GoTrue's IntervalLimiter: the whole number of events per window, the windows following each other from the start. */
export function memoryIntervalBucket(rate: Rate, now: () => number = Date.now): SendBucket {
  const events = Math.trunc(rate.events);
  let start = now();
  let count = 0;
  return {
    async take() {
      const at = now();
      const windows = Math.floor((at - start) / rate.perMs);
      if (windows > 0) {
        start += windows * rate.perMs;
        count = 0;
      }
      if (count >= events) return false;
      count++;
      return true;
    },
  };
}

/** GoTrue's BurstLimiter (x/time/rate): a bucket of `events` sends, full at first, earning one back per `perMs`. */
export function memoryBurstBucket(rate: Rate, now: () => number = Date.now): SendBucket {
  const bucket = { capacity: rate.events, perMs: rate.perMs };
  let state: BucketState | undefined;
  return {
    async take() {
      const step = takeToken(bucket, state, now());
      state = step.state;
      return step.taken;
    },
  };
}

export function memorySendBucket(rate: Rate): SendBucket {
  return rate.shape === "burst" ? memoryBurstBucket(rate) : memoryIntervalBucket(rate);
}

// The scripts read the clock of the Redis server, so every instance counts on the same time.
// Numbers are written with %.17g so that milliseconds and fractions of a token survive exactly.

/** KEYS[1]: the bucket; ARGV: events per window, window in ms. Returns 1 when a send may go out. */
const INTERVAL_SCRIPT = `
local events = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local start = tonumber(redis.call('HGET', KEYS[1], 'window_start'))
local count = tonumber(redis.call('HGET', KEYS[1], 'window_count')) or 0
if start == nil or now < start then
  start = now
  count = 0
elseif now - start >= window then
  start = start + math.floor((now - start) / window) * window
  count = 0
end
local allowed = 0
if count < events then
  count = count + 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'window_start', string.format('%.17g', start), 'window_count', string.format('%.17g', count))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(start + window - now)))
return allowed
`;

/** KEYS[1]: the bucket; ARGV: capacity, ms per token, longest expiry in ms. Returns 1 when a token was taken. */
const BURST_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
local last = tonumber(redis.call('HGET', KEYS[1], 'tokens_at'))
if tokens == nil or last == nil then
  tokens = capacity
  last = now
elseif now > last then
  tokens = math.min(capacity, tokens + (now - last) / per)
  last = now
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'tokens_at', string.format('%.17g', last))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.min(tonumber(ARGV[3]), math.ceil((capacity - tokens) * per))))
return allowed
`;

/**
 * A full bucket needs no state: it expires once it would have filled up again. Past a year the
 * state is dropped anyway, which only matters for buckets refilling over more than a year.
 */
const LONGEST_EXPIRY_MS = 365 * 24 * 3_600_000;

/**
 * Runs a bucket script (1 when a token was taken) on `key` in Redis. While Redis fails, `fallback`
 * (this instance's memory) answers, and each failure is logged as a warning.
 */
async function takeInRedis(
  redis: Redis,
  /** `name`: the limit's name in the log (not the client's key). */
  call: { script: string; key: string; args: readonly string[]; limit: "send" | "request"; name: string },
  logger: Pick<Logger, "warn">,
  fallback: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return (await redis.eval(call.script, 1, call.key, ...call.args)) === 1;
  } catch (error) {
    logger.warn(
      { err: (error as Error).message, key: call.name },
      `redis unavailable: the ${call.limit} limit uses this instance's memory`,
    );
    return fallback();
  }
}

export interface SendBucketOptions {
  /** The Redis key of the shared bucket. */
  key: string;
  redis?: Redis | undefined;
  logger: Pick<Logger, "warn">;
}

/**
 * One send bucket for the whole service: in Redis when given (so every instance draws from the
 * same bucket), else in memory. While Redis fails, this instance counts in its own memory.
 */
export function createSendBucket(rate: Rate, options: SendBucketOptions): SendBucket {
  const memory = memorySendBucket(rate);
  const { redis } = options;
  if (!redis) return memory;
  const script = rate.shape === "burst" ? BURST_SCRIPT : INTERVAL_SCRIPT;
  const args = (rate.shape === "burst" ? [rate.events, rate.perMs, LONGEST_EXPIRY_MS] : [Math.trunc(rate.events), rate.perMs]).map(String);
  const call = { script, key: options.key, args, limit: "send" as const, name: options.key };
  return { take: () => takeInRedis(redis, call, options.logger, () => memory.take()) };
}

export interface RequestLimiterOptions {
  /** Prefix of the Redis keys of this limit's buckets. */
  keyPrefix: string;
  redis?: Redis | undefined;
  logger: Pick<Logger, "warn">;
}

/**
 * A request limit: in Redis when given (every instance draws from the same bucket of a key), else
 * in memory. While Redis fails, this instance counts in its own memory.
 */
export function createRequestLimiter(bucket: Bucket, options: RequestLimiterOptions): Limiter {
  const memory = memoryRequestLimiter(bucket);
  const { redis } = options;
  if (!redis) return memory;
  const args = [bucket.capacity, bucket.perMs, REQUEST_BUCKET_TTL_MS].map(String);
  return {
    allow: (key) =>
      takeInRedis(
        redis,
        { script: BURST_SCRIPT, key: `${options.keyPrefix}:${key}`, args, limit: "request", name: options.keyPrefix },
        options.logger,
        () => memory.allow(key),
      ),
  };
}

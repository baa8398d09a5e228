/** Conversions for the auth settings whose values are more than a number or a flag. */

import { DurationError, parseGoDuration } from "../domain/go-duration.js";

/** The names a setting is read from: `AUTH_X`, then GoTrue's `GOTRUE_X`, then any extra (unprefixed) names. */
export function names(name: string, ...unprefixed: string[]): string[] {
  return [`AUTH_${name}`, `GOTRUE_${name}`, ...unprefixed];
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/;

/** A Go duration (`10s`, `1h30m`, `500ms`) or a plain number of seconds, in milliseconds. */
export function parseDuration(raw: string): number {
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  let rest = raw;
  let total = 0;
  while (rest.length > 0) {
    const match = DURATION.exec(rest);
    if (!match) throw new Error(`must be a number of seconds or a duration such as 10s or 1h30m, got "${raw}"`);
    total += Number(match[1]) * (DURATION_UNITS[match[2] as string] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return total;
}

export function duration(fallbackMs: number) {
  return (raw: string | undefined): number => (raw === undefined ? fallbackMs : parseDuration(raw));
}

/** An absolute http(s) URL, without a trailing slash. */
export function parseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`must be an http or https URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

export const optionalUrl = (raw: string | undefined): string | undefined => (raw === undefined ? undefined : parseUrl(raw));

export function requiredUrl(raw: string | undefined): string {
  if (raw === undefined) throw new Error("is required");
  return parseUrl(raw);
}

/** Comma-separated values, trimmed, empty items dropped. */
export function list(raw: string | undefined, fallback: string[] = []): string[] {
  if (raw === undefined) return fallback;
  return raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function optionalEmail(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!EMAIL.test(raw)) throw new Error(`must be an email address, got "${raw}"`);
  return raw;
}

/**
 * PASSWORD_REQUIRED_CHARACTERS: character sets separated by `:`; `\:` is a literal colon
 * inside a set. A password needs at least one character of every set.
 */
export function parseRequiredCharacters(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const sets: string[] = [];
  let current = "";
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === "\\" && raw[i + 1] === ":") {
      current += ":";
      i++;
    } else if (char === ":") {
      sets.push(current);
      current = "";
    } else current += char;
  }
  sets.push(current);
  return sets.filter((set) => set !== "");
}

/**
 * DB_NAMESPACE: the schema of the service's tables, as in GoTrue (`auth` by default). Held to a
 * plain lower-case identifier, since it is written into the migrations.
 */
export function parseNamespace(raw: string | undefined): string {
  if (raw === undefined) return "auth";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new Error(`must be a lower-case identifier (a-z, 0-9, _; at most 63 characters), got "${raw}"`);
  return raw;
}

/** `key=value,key=value` (OTEL_RESOURCE_ATTRIBUTES). */
export function parseAttributes(raw: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const item of list(raw)) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new Error(`must be key=value pairs separated by commas, got "${item}"`);
    attributes[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return attributes;
}

/**
 * RATE_LIMIT_EMAIL_SENT / RATE_LIMIT_SMS_SENT, read as GoTrue reads its `Rate` values
 * (internal/conf/rate.go, internal/ratelimit in supabase/auth):
 * - `N` (a decimal number): at most N sends per hour, counted in fixed one-hour windows
 *   (the fraction is dropped when counting);
 * - `N/duration` (a whole number, then a Go duration such as `1m` or `1h30m`): a token bucket
 *   that holds N sends and gains one back every `duration` (a duration of zero or less means an
 *   hour, as GoTrue).
 * Zero events blocks every send.
 */
export interface Rate {
  shape: "interval" | "burst";
  events: number;
  /** The window (interval) or the time to earn one send back (burst), in milliseconds. */
  perMs: number;
}

const HOUR_MS = 3_600_000;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** GoTrue reads the events of `N/duration` as an unsigned integer of at most 52 bits. */
const MAX_BURST_EVENTS = 2 ** 52 - 1;

export function parseRate(raw: string): Rate {
  if (DECIMAL.test(raw)) {
    const events = Number(raw);
    if (!Number.isFinite(events)) throw new Error(`the number of events is too large, got "${raw}"`);
    if (events < 0) throw new Error(`must not be negative, got "${raw}"`);
    return { shape: "interval", events, perMs: HOUR_MS };
  }
  const parts = raw.split("/");
  if (parts.length !== 2) throw new Error(`must be a number of sends per hour (30) or sends/duration (10/1m, 100/24h), got "${raw}"`);
  const [count = "", per = ""] = parts;
  if (!/^\d+$/.test(count) || Number(count) > MAX_BURST_EVENTS)
    throw new Error(`the events part of "${raw}" must be a whole number (at most 2^52 - 1)`);
  let perMs: number;
  try {
    perMs = parseGoDuration(per);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    throw new Error(`the duration part of "${raw}" is not a Go duration such as 1m or 1h30m (${error.message})`);
  }
  return { shape: "burst", events: Number(count), perMs: perMs > 0 ? perMs : HOUR_MS };
}

export function rate(fallback: Rate) {
  return (raw: string | undefined): Rate => (raw === undefined ? fallback : parseRate(raw));
}

/** A request limit's rate (GoTrue reads a float): a number of at least 0, `fallback` when unset. */
export function requestRate(fallback: number) {
  return (raw: string | undefined): number => {
    if (raw === undefined) return fallback;
    const value = raw.trim() === "" ? Number.NaN : Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`must be a number of at least 0, got "${raw}"`);
    return value;
  };
}

/** SMS_TEST_OTP: `phone:otp,phone:otp`. */
export function parseTestOtps(raw: string | undefined): Record<string, string> {
  const otps: Record<string, string> = {};
  for (const item of list(raw)) {
    const [phone, otp] = item.split(":").map((part) => part.trim());
    if (!phone || !otp || !/^\d+$/.test(otp)) throw new Error(`must be phone:otp pairs separated by commas, got "${item}"`);
    otps[phone.replace(/^\+/, "")] = otp;
  }
  return otps;
}

/** An RFC 3339 time (`2030-01-01T00:00:00Z`), in epoch milliseconds; undefined when unset. */
export function parseInstant(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) throw new Error(`must be an RFC 3339 time such as 2030-01-01T00:00:00Z, got "${raw}"`);
  return at;
}

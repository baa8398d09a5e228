/** Timestamps: PostgreSQL's text form to RFC 3339 (what GoTrue's JSON carries), and comparisons. */
import type { Timestamp } from "../db/rows.js";

/** `2025-01-02 03:04:05.123456+00` -> `2025-01-02T03:04:05.123456Z`. */
export function rfc3339(text: Timestamp): string {
  let out = text.replace(" ", "T");
  if (/[+-]00(:00)?$/.test(out)) out = out.replace(/[+-]00(:00)?$/, "Z");
  else if (/[+-]\d\d$/.test(out)) out = `${out}:00`;
  return out;
}

export function rfc3339OrNull(text: Timestamp | null | undefined): string | null {
  return text ? rfc3339(text) : null;
}

export function millis(text: Timestamp): number {
  return Date.parse(rfc3339(text));
}

/** Whole seconds left before `sentAt + intervalMs`, or 0 when that moment has passed. */
export function secondsUntil(sentAt: Timestamp | null, intervalMs: number, now = Date.now()): number {
  if (!sentAt) return 0;
  const left = millis(sentAt) + intervalMs - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

export const nowIso = (): string => new Date().toISOString();

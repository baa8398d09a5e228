/**
 * Timestamps as the converter leaves them in SQLite. SQLAlchemy writes DATETIME columns as naive
 * `YYYY-MM-DD HH:MM:SS.ffffff` text in UTC, so the demo does the same: the service must cope with
 * exactly that. Times are carried as integer microseconds since the epoch.
 */

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
export const MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;
export const MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
const dayPrefix = new Map<number, string>();

let lastMicros = Number.NaN;
let lastText = "";

/**
 * Naive UTC text, e.g. `2026-02-03 09:00:00.000000`. Millions of calls: the date part is cached per
 * day, and a row's repeated instant (a snapshot's valid_to_at is its observed_at) is formatted once.
 */
export function naive(micros: number): string {
  if (micros === lastMicros) return lastText;
  lastMicros = micros;
  lastText = format(micros);
  return lastText;
}

function format(micros: number): string {
  const day = Math.floor(micros / MICROS_PER_DAY);
  let prefix = dayPrefix.get(day);
  if (prefix === undefined) {
    prefix = `${new Date(day * 86_400_000).toISOString().slice(0, 10)} `;
    dayPrefix.set(day, prefix);
  }
  let rest = micros - day * MICROS_PER_DAY;
  const hours = Math.floor(rest / MICROS_PER_HOUR);
  rest -= hours * MICROS_PER_HOUR;
  const minutes = Math.floor(rest / MICROS_PER_MINUTE);
  rest -= minutes * MICROS_PER_MINUTE;
  const seconds = Math.floor(rest / MICROS_PER_SECOND);
  const fraction = String(rest - seconds * MICROS_PER_SECOND).padStart(6, "0");
  return `${prefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${fraction}`;
}

/** Python `isoformat()` of an aware UTC datetime, the form the converter puts into sync cursor values. */
export function isoWithOffset(micros: number): string {
  return `${naive(micros).replace(" ", "T")}+00:00`;
}

/** Midnight UTC of the day containing `date`, in microseconds. */
export function startOfUtcDay(date: Date): number {
  return Math.floor(date.getTime() / 86_400_000) * MICROS_PER_DAY;
}

/**
 * Instants are microseconds since the Unix epoch (UTC) held in a plain number: exact up to
 * year ~2255, and they keep the microsecond precision the original (Python) service had,
 * which a JS Date (milliseconds) would lose.
 */
export type Instant = number;

const US_PER_MS = 1000;
const US_PER_S = 1_000_000;

export type RequestDateError = "empty" | "invalid" | "naive";

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
  /** Offset east of UTC in microseconds, or null for a naive value. */
  offset: number | null;
}

function toInstant(p: Parts, assumeUtc: boolean): Instant | null {
  const offset = p.offset ?? (assumeUtc ? 0 : null);
  if (offset === null) return null;
  const ms = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return ms * US_PER_MS + p.micros - offset;
}

function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year);
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Date of ISO week `week` day `weekday` (1 = Monday) of ISO year `year`. */
function isoWeekDate(year: number, week: number, weekday: number): { year: number; month: number; day: number } | null {
  if (week < 1 || week > 53 || weekday < 1 || weekday > 7) return null;
  const jan4 = new Date(Date.UTC(2000, 0, 4));
  jan4.setUTCFullYear(year);
  const jan4Weekday = jan4.getUTCDay() || 7;
  const week1Monday = jan4.getTime() - (jan4Weekday - 1) * 86_400_000;
  if (week === 53) {
    // Only years that start on Thursday (or leap years starting on Wednesday) have week 53.
    const jan1 = (jan4Weekday + 4) % 7 || 7;
    const leap = validDate(year, 2, 29);
    if (!(jan1 === 4 || (jan1 === 3 && leap))) return null;
  }
  const d = new Date(week1Monday + ((week - 1) * 7 + weekday - 1) * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The numeric value of a regex group (0 when the group did not take part). */
const n = (m: RegExpExecArray, group: number): number => Number(m[group] ?? 0);

const DATE_FORMS: Array<[RegExp, (m: RegExpExecArray) => { year: number; month: number; day: number } | null]> = [
  [/^(\d{4})-(\d{2})-(\d{2})/, (m) => ({ year: n(m, 1), month: n(m, 2), day: n(m, 3) })],
  [/^(\d{4})-W(\d{2})-(\d)/, (m) => isoWeekDate(n(m, 1), n(m, 2), n(m, 3))],
  [/^(\d{4})-W(\d{2})/, (m) => isoWeekDate(n(m, 1), n(m, 2), 1)],
  [/^(\d{4})W(\d{2})(\d)/, (m) => isoWeekDate(n(m, 1), n(m, 2), n(m, 3))],
  [/^(\d{4})W(\d{2})/, (m) => isoWeekDate(n(m, 1), n(m, 2), 1)],
  [/^(\d{4})(\d{2})(\d{2})/, (m) => ({ year: n(m, 1), month: n(m, 2), day: n(m, 3) })],
];

/** `HH[:MM[:SS[.f]]]` or basic `HH[MM[SS[.f]]]`, separators consistent; fraction of any length, cut to 6 digits. */
const TIME = /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2})(?:[.,](\d+))?)?)?$/;

function parseClock(text: string): { h: number; m: number; s: number; us: number } | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const h = n(m, 1);
  const min = m[3] ? +m[3] : 0;
  const s = m[4] ? +m[4] : 0;
  const us = m[5] ? Number(m[5].slice(0, 6).padEnd(6, "0")) : 0;
  return { h, m: min, s, us };
}

function parseOffset(text: string): number | null {
  const sign = text[0] === "-" ? -1 : 1;
  const clock = parseClock(text.slice(1));
  if (!clock || clock.m > 59 || clock.s > 59) return null;
  const us = ((clock.h * 60 + clock.m) * 60 + clock.s) * US_PER_S + clock.us;
  if (us >= 24 * 3600 * US_PER_S) return null;
  return sign * us;
}

/**
 * Parses a request timestamp the way the original did (Python 3.11 `datetime.fromisoformat`
 * after replacing every `Z` by `+00:00`): ISO 8601 calendar, basic and week dates, any single
 * character between date and time, offsets `+HH`, `+HHMM`, `+HH:MM[:SS[.f]]`. A value without
 * an offset is refused.
 */
export function parseRequestInstant(input: string): { instant: Instant } | { error: RequestDateError } {
  const text = input.trim().replaceAll("Z", "+00:00");
  if (text === "") return { error: "empty" };
  for (const [pattern, build] of DATE_FORMS) {
    const m = pattern.exec(text);
    if (!m) continue;
    const date = build(m);
    if (!date || !validDate(date.year, date.month, date.day)) return { error: "invalid" };
    const rest = text.slice(m[0].length);
    if (rest === "") return { error: "naive" };
    const timeAndZone = rest.slice(1);
    const zoneAt = timeAndZone.search(/[+-]/);
    const clock = parseClock(zoneAt === -1 ? timeAndZone : timeAndZone.slice(0, zoneAt));
    if (!clock || clock.h > 23 || clock.m > 59 || clock.s > 59) return { error: "invalid" };
    const offset = zoneAt === -1 ? null : parseOffset(timeAndZone.slice(zoneAt));
    if (zoneAt !== -1 && offset === null) return { error: "invalid" };
    if (offset === null) return { error: "naive" };
    const parts = { ...date, hour: clock.h, minute: clock.m, second: clock.s, micros: clock.us, offset };
    return { instant: toInstant(parts, false) as Instant };
  }
  return { error: "invalid" };
}

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

const UTC_SUFFIXES = new Set(["", "Z", "+00", "+00:00", "+0000"]);

/**
 * Fast path for the shapes the converter and PostgreSQL write in bulk, `YYYY-MM-DD HH:MM:SS`
 * with an optional 6-digit fraction and a UTC or absent zone; null means "use the general parser".
 * Dynamics and the index load read hundreds of thousands of these.
 */
function parseCommonStored(text: string): Instant | null {
  if (text.length < 19 || text[4] !== "-" || text[7] !== "-" || text[13] !== ":" || text[16] !== ":") return null;
  const separator = text[10];
  if (separator !== " " && separator !== "T") return null;
  const [year, month, day] = [digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2)];
  const [hour, minute, second] = [digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2)];
  let micros = 0;
  let rest = 19;
  if (text[19] === ".") {
    micros = digits(text, 20, 6);
    rest = 26;
    if (micros < 0 || (text.length > 26 && text.charCodeAt(26) >= 48 && text.charCodeAt(26) <= 57)) return null;
  }
  if (!UTC_SUFFIXES.has(text.slice(rest))) return null;
  if (
    year < 1 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 28 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  ) {
    return null;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) * US_PER_MS + micros;
}

const STORED = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Reads a stored timestamp: ISO text with `T` or a space, with or without an offset (a value
 * without one is UTC, which is what the converter writes into SQLite), as PostgreSQL prints
 * timestamptz (`+00`, `+05:30`), or a Date. Anything else is null.
 */
export function parseStoredInstant(value: unknown): Instant | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime() * US_PER_MS;
  if (typeof value !== "string") return null;
  const fast = parseCommonStored(value);
  if (fast !== null) return fast;
  const m = STORED.exec(value.trim());
  if (!m) return null;
  const [year, month, day] = [n(m, 1), n(m, 2), n(m, 3)];
  if (!validDate(year, month, day)) return null;
  const zone = m[8];
  const offset = zone ? parseOffset(zone.toUpperCase() === "Z" ? "+00" : zone.replaceAll(":", "")) : null;
  if (zone && offset === null) return null;
  const parts: Parts = {
    year,
    month,
    day,
    hour: n(m, 4),
    minute: n(m, 5),
    second: n(m, 6),
    micros: m[7] ? Number(m[7].slice(0, 6).padEnd(6, "0")) : 0,
    offset,
  };
  if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return null;
  return toInstant(parts, true);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** Civil date of a day count since 1970-01-01 (H. Hinnant's days_from_civil, inverted). */
function civil(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}`;
}

/**
 * `2026-02-01T10:00:00Z`, with a 6-digit fraction only when it is not zero (Python's
 * isoformat). Hand-written arithmetic: dynamics formats up to 20,000 of these per response.
 */
export function formatInstant(instant: Instant): string {
  const micros = ((instant % US_PER_S) + US_PER_S) % US_PER_S;
  const seconds = (instant - micros) / US_PER_S;
  const days = Math.floor(seconds / 86_400);
  const inDay = seconds - days * 86_400;
  const h = Math.floor(inDay / 3600);
  const m = Math.floor((inDay % 3600) / 60);
  const base = `${civil(days)}T${pad2(h)}:${pad2(m)}:${pad2(inDay % 60)}`;
  return micros === 0 ? `${base}Z` : `${base}.${String(micros).padStart(6, "0")}Z`;
}

export function formatStored(value: unknown): string | null {
  const instant = parseStoredInstant(value);
  return instant === null ? null : formatInstant(instant);
}

export const MICROS_PER_SECOND = US_PER_S;

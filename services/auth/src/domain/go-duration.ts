/**
 * Go's time.ParseDuration, which GoTrue uses for `ban_duration`: an optional sign, then one or
 * more decimal numbers each with a unit (ns, us/µs/μs, ms, s, m, h), such as `300ms`, `-1.5h`
 * or `2h45m`; a bare `0` is allowed. The errors carry Go's messages.
 */

const UNIT_NANOS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 micro sign
  μs: 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** The largest duration Go represents (2^63 - 1 ns, about 292 years). */
const MAX_NANOS = 2n ** 63n - 1n;

const quote = (text: string) => JSON.stringify(text);

export class DurationError extends Error {}

/** Parses a Go duration; returns milliseconds (possibly fractional or negative). */
export function parseGoDuration(raw: string): number {
  const invalid = () => new DurationError(`time: invalid duration ${quote(raw)}`);
  let rest = raw;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw invalid();
  let total = 0n;
  while (rest !== "") {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest) as RegExpExecArray;
    const whole = number[1] ?? "";
    const fraction = number[2];
    if (whole === "" && (fraction === undefined || fraction === "")) throw invalid();
    rest = rest.slice(number[0].length);
    const unitMatch = /^[^\d.]+/.exec(rest);
    if (!unitMatch) throw new DurationError(`time: missing unit in duration ${quote(raw)}`);
    const unit = unitMatch[0];
    const nanos = UNIT_NANOS[unit];
    if (nanos === undefined) throw new DurationError(`time: unknown unit ${quote(unit)} in duration ${quote(raw)}`);
    rest = rest.slice(unit.length);
    // Whole part exactly, fraction scaled down (Go truncates the fraction the same way).
    let value = BigInt(whole === "" ? "0" : whole) * BigInt(nanos);
    if (fraction) value += BigInt(Math.floor((Number(`0.${fraction}`) * nanos) as number));
    total += value;
    if (total > MAX_NANOS) throw invalid();
  }
  const ms = Number(total) / 1e6;
  return negative ? -ms : ms;
}

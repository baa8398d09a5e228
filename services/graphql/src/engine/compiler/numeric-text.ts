/**
 * How Hasura writes numbers into `numeric` columns, which decides the display scale PostgreSQL
 * keeps (`12344.5700` is not `12344.57` in a response):
 *
 * - GraphQL mutations send each value as the text of Haskell's `show` for a Scientific:
 *   fixed notation for 0.1 <= |x| < 10^7, always with a fractional digit (`5.0`, `12345.67`),
 *   exponent notation otherwise (`1.0e-30`, `1.2345678e7`).
 * - The legacy `/v1/query` `insert` sends PostgreSQL's binary numeric, whose scale counts whole
 *   base-10000 digits: the fractional digits rounded up to a multiple of four (`12345.6700`).
 */

interface Decimal {
  negative: boolean;
  /** Significant digits, no leading or trailing zeros ("" for zero). */
  digits: string;
  /** value = 0.digits × 10^exponent */
  exponent: number;
}

/** The decimal digits of a number, or of a number's text (a JSON or GraphQL number token); null when it is not one. */
function decimal(value: unknown): Decimal | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : String(value);
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match || `${match[2]}${match[3] ?? ""}` === "") return null;
  const whole = match[2] ?? "";
  const all = whole + (match[3] ?? "");
  const significant = all.replace(/^0+/, "");
  const digits = significant.replace(/0+$/, "");
  if (digits === "") return { negative: false, digits: "", exponent: 0 };
  const exponent = whole.length - (all.length - significant.length) + Number(match[4] ?? 0);
  return { negative: match[1] === "-", digits, exponent };
}

/** `show` of a Haskell Scientific: the text Hasura's GraphQL mutations send for a numeric value. */
export function scientificText(value: unknown): string | null {
  const d = decimal(value);
  if (!d) return null;
  if (d.digits === "") return "0.0";
  const sign = d.negative ? "-" : "";
  const { digits, exponent } = d;
  if (exponent < 0 || exponent > 7) return `${sign}${digits[0]}.${digits.slice(1) || "0"}e${exponent - 1}`;
  if (exponent === 0) return `${sign}0.${digits}`;
  const whole = digits.slice(0, exponent).padEnd(exponent, "0");
  return `${sign}${whole}.${digits.slice(exponent) || "0"}`;
}

/** Fixed notation with the display scale PostgreSQL's binary numeric gives: fractional digits rounded up to a multiple of 4. */
export function binaryNumericText(value: unknown): string | null {
  const d = decimal(value);
  if (!d) return null;
  if (d.digits === "") return "0";
  const sign = d.negative ? "-" : "";
  const { digits, exponent } = d;
  const fraction = Math.max(0, digits.length - exponent);
  const scale = Math.ceil(fraction / 4) * 4;
  const whole = exponent > 0 ? digits.slice(0, exponent).padEnd(exponent, "0") : "0";
  const fractional = (exponent < 0 ? "0".repeat(-exponent) + digits : digits.slice(Math.max(0, exponent))).padEnd(scale, "0");
  return scale === 0 ? `${sign}${whole}` : `${sign}${whole}.${fractional}`;
}

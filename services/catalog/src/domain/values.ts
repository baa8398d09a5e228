/**
 * Output conventions of the original service: strings trimmed with empty -> null, numbers as floats
 * with "," accepted as a decimal separator, integers only when integral, booleans from 0/1 or
 * yes/no-like text.
 */

export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value).trim();
  return s === "" ? null : s;
}

export function float(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "string") return null;
  const s = value.trim().replace(",", ".");
  if (s === "" || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

export function int(value: unknown): number | null {
  const n = float(value);
  return n !== null && Number.isInteger(n) ? n : null;
}

const TRUE = new Set(["1", "true", "yes", "on", "y", "t"]);
const FALSE = new Set(["0", "false", "no", "off", "n", "f"]);

export function bool(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value === 1 ? true : value === 0 ? false : null;
  if (typeof value !== "string") return null;
  const s = value.trim().toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : null;
}

/** Unicode-aware lower case used for every case-insensitive match (SQLite's LOWER folds ASCII only). */
export function fold(value: string): string {
  return value.toLowerCase();
}

/** Trim, drop empties, lower-case, drop duplicates keeping the first occurrence, as the original's count routes do. */
export function tokens(values: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    const t = fold(v.trim());
    if (t !== "") seen.add(t);
  }
  return [...seen];
}

/** UTF-16 code-unit order (code-point order outside astral characters), the same on every database; SQL ORDER BY would follow the server collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

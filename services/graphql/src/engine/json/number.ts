/**
 * Numbers a JavaScript double cannot hold exactly (bigint values beyond 2^53, numerics with
 * more than 15 significant digits). Request bodies and GraphQL literals keep such numbers as
 * `JsonNumber`s with their digits: PostgreSQL receives the text, and JSON values built from
 * them (json/jsonb columns) print the digits as a JSON number.
 */
import { type Compiled, compile, type Queryable, type QueryOptions, Sql } from "@platform/core";

export class JsonNumber {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  /** Where a plain JSON.stringify meets one (logs, cache keys), the nearest double. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** Significant digits of a JSON/GraphQL number token (`-12.50e3` has 3). */
function significantDigits(text: string): number {
  const mantissa = text.replace(/^-/, "").replace(/[eE].*$/, "");
  const digits = mantissa.replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  return digits.length;
}

/** A number token as a JS number when the double is exact, otherwise as a JsonNumber keeping its text. */
export function numberFromText(text: string): number | JsonNumber {
  const value = Number(text);
  if (!Number.isFinite(value)) return new JsonNumber(text);
  if (Number.isSafeInteger(value) && /^-?\d+$/.test(text)) return value;
  const digits = significantDigits(text);
  if (value === 0 && digits > 0) return new JsonNumber(text);
  return digits <= 15 ? value : new JsonNumber(text);
}

/** JSON text made elsewhere (by PostgreSQL), placed as it is into a value printed by jsonText. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Whether a value holds a JsonNumber or RawJson anywhere (which JSON.stringify cannot print). */
function holdsExact(value: object): boolean {
  if (value instanceof JsonNumber || value instanceof RawJson) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (v !== null && typeof v === "object" && holdsExact(v)) return true;
    return false;
  }
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && typeof v === "object" && holdsExact(v)) return true;
  }
  return false;
}

function exactText(value: unknown): string {
  if (value instanceof JsonNumber) return value.text;
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : exactText(v))).join(",")}]`;
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === "function") continue;
    parts.push(`${JSON.stringify(key)}:${exactText(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * JSON text of a value that may hold JsonNumbers (printed as the number they carry) and RawJson;
 * JSON.stringify's own (several times faster) when it holds neither, as nearly every value does.
 */
export function jsonText(value: unknown): string {
  if (value !== null && typeof value === "object" && holdsExact(value)) return exactText(value);
  return JSON.stringify(value) ?? "null";
}

/** A value as a statement parameter: JsonNumbers go as their text, for PostgreSQL to read exactly. */
export function toParam(value: unknown): unknown {
  return value instanceof JsonNumber ? value.text : value;
}

/** A Queryable whose statements bind JsonNumbers as their text (mutations run their statements directly). */
export function bindingNumbersAsText(q: Queryable): Queryable {
  return {
    query<T>(statement: Sql | Compiled, options?: QueryOptions) {
      const compiled = statement instanceof Sql ? compile(statement, "postgres") : statement;
      return q.query<T>({ text: compiled.text, values: compiled.values.map(toParam) }, options);
    },
    exec: (script) => q.exec(script),
  };
}

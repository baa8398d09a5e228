/**
 * Valid JSON values for each scalar the engine exposes, acceptable to the PostgreSQL type behind
 * it too (a date string PostgreSQL parses, an Int within 32 bits, ...). This is the one place
 * that knows PostgreSQL types; `Purpose` says where the value goes, since some strings must be
 * patterns or JSON paths, and values stored in a table stay moderate so `_inc` cannot overflow.
 */
import { JsonNumber } from "../../src/engine/json/number.js";
import type { Rng } from "./prng.js";

/**
 * compare: an operand of a comparison (anything of the type); store: a column value written by a
 * mutation or a function argument; inc: an `_inc` amount; key: a primary/foreign key (small, to
 * hit rows); like / regex / similar / jsonPath / jsonKey: strings of that language; limit/offset.
 */
export type Purpose = "compare" | "store" | "inc" | "key" | "like" | "regex" | "similar" | "jsonPath" | "jsonKey" | "limit" | "offset";

const UUIDS = [
  "11111111-1111-4111-8111-111111111111",
  "22222222-2222-4222-8222-222222222222",
  "aaaaaaaa-0000-4000-8000-000000000001",
  "AAAAAAAA-0000-4000-8000-000000000002",
  "00000000-0000-0000-0000-000000000000",
];
const TEXTS = ["alpha", "beta", "Ada", "a", "", "x y", "Ünïcödé", 'q"uote', "back\\slash", "new\nline", "%_", "GAMMA", "emoji 🎉"];
const LIKE = ["%a%", "a%", "%", "_eta", "ALPHA", "%e%", "A_a", "%\\%%"];
const REGEX = ["^a", "a|b", "[a-z]+", "^$", ".*", "(?i)ALPHA", "^[[:alpha:]]+$", "e{1,2}"];
const SIMILAR = ["%a%", "(a|b)%", "_eta", "a*", "%(ph|et)%"];
const JSON_PATHS = ["$.a", "a", "$.b[0]", "$", "$.c.d", "b[1]", "$.missing", "$['a']", "c.d", '$["c"]["d"]', "$[0]"];
const DATES = ["2024-01-15", "2000-02-29", "1999-12-31", "2023-12-31", "1970-01-01", "2038-01-19", "0001-01-01", "9999-12-31"];
const TIMES = ["10:00", "23:59:59", "00:00:00", "12:30:15.123456", "10:00:00"];
const ZONES = ["Z", "+02", "-05", "+05:30", "+00"];

function decimal(rng: Rng, scale: number): number {
  return Math.round((rng.next() - 0.5) * scale * 1000) / 1000;
}

function intFor(rng: Rng, purpose: Purpose, max: number): number {
  if (purpose === "inc") return rng.between(-5, 5);
  if (purpose === "key") return rng.between(1, 8);
  if (purpose === "limit") return rng.between(0, 4);
  if (purpose === "offset") return rng.between(0, 3);
  if (purpose === "compare" && rng.chance(0.1)) return rng.pick([max, -max - 1, 0]);
  return rng.chance(0.7) ? rng.between(-3, 10) : rng.between(-1000, 1000);
}

function stringFor(rng: Rng, purpose: Purpose, jsonKeys: string[]): string {
  switch (purpose) {
    case "like":
      return rng.pick(LIKE);
    case "regex":
      return rng.pick(REGEX);
    case "similar":
      return rng.pick(SIMILAR);
    case "jsonPath":
      return rng.pick(JSON_PATHS);
    case "jsonKey":
      return rng.pick([...jsonKeys, "zz"]);
    default:
      return rng.pick(TEXTS);
  }
}

/** A JSON document: objects use the schema's JSON keys so operators find something. */
export function jsonDocument(rng: Rng, jsonKeys: string[], depth = 0): unknown {
  const roll = rng.between(0, depth >= 2 ? 4 : 6);
  if (roll === 0) return rng.chance(0.1) ? new JsonNumber("12345678901234567890") : rng.between(-5, 100);
  if (roll === 1) return rng.pick(["x", "", "s", "two"]);
  if (roll === 2) return rng.chance(0.5);
  if (roll === 3) return decimal(rng, 10);
  if (roll === 4) return null;
  if (roll === 5) return Array.from({ length: rng.between(0, 3) }, () => jsonDocument(rng, jsonKeys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of rng.some(jsonKeys, rng.between(0, 3))) out[key] = jsonDocument(rng, jsonKeys, depth + 1);
  return out;
}

/** A value of the scalar named `scalar`, or undefined when the scalar is unknown here. */
export function scalarValue(rng: Rng, scalar: string, purpose: Purpose, jsonKeys: string[]): unknown {
  switch (scalar) {
    case "Int":
      return intFor(rng, purpose, 2147483647);
    case "smallint":
      return intFor(rng, purpose, 32767);
    case "bigint": {
      // Beyond 2^53: as strings, or as the exact numbers a request body keeps (JsonNumber, as /v1/graphql parses them).
      if (purpose === "compare" && rng.chance(0.15))
        return rng.pick([
          "9223372036854775807",
          "-9223372036854775808",
          new JsonNumber("9223372036854775807"),
          new JsonNumber("-9007199254740993"),
        ]);
      if (purpose === "store" && rng.chance(0.05)) return rng.pick([new JsonNumber("1152921504606846977"), "-1152921504606846977"]);
      const n = purpose === "store" && rng.chance(0.3) ? rng.between(-1e9, 1e9) * 1000 : intFor(rng, purpose, 2147483647);
      return rng.chance(0.3) ? String(n) : n;
    }
    case "numeric": {
      if (purpose === "inc" || purpose === "key") return intFor(rng, purpose, 100);
      const n = rng.chance(0.5) ? decimal(rng, 1000) : rng.between(-50, 50);
      if (rng.chance(0.15)) {
        const long = ["123456789012345678901234567890.5", "0.30000000000000004"];
        return rng.pick(["12.50", "0.001", "-0", "1.5e3", ...long, ...long.map((t) => new JsonNumber(t))]);
      }
      return rng.chance(0.3) ? String(n) : n;
    }
    case "Float":
    case "float8":
      if (purpose === "inc") return rng.pick([1, -1.5, 0.25, 2]);
      return rng.chance(0.5) ? decimal(rng, 100) : rng.between(-10, 10);
    case "String":
    case "citext":
      return stringFor(rng, purpose, jsonKeys);
    case "Boolean":
      return rng.chance(0.5);
    case "uuid":
      return rng.chance(0.8) ? rng.pick(UUIDS) : randomUuid(rng);
    case "date":
      return rng.pick(DATES);
    case "time":
      return rng.pick(TIMES);
    case "timetz":
      return `${rng.pick(TIMES)}${rng.pick(ZONES)}`;
    case "timestamp":
      return `${rng.pick(DATES)}${rng.pick(["T", " "])}${rng.pick(TIMES)}`;
    case "timestamptz":
      return `${rng.pick(DATES)}${rng.pick(["T", " "])}${rng.pick(TIMES)}${rng.pick(ZONES)}`;
    case "json":
    case "jsonb":
      return jsonDocument(rng, jsonKeys);
    default:
      return undefined;
  }
}

function randomUuid(rng: Rng): string {
  const hex = () => rng.between(0, 15).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

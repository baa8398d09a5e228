/**
 * Kriti's basic functions (https://github.com/hasura/kriti-lang, src/Kriti/CustomFunctions.hs,
 * listed in its README), with their results and refusals. Each takes one value.
 */
import { JsonNumber } from "../../json/number.js";
import { type Json, type KritiFunction, KritiFunctionError, numeric, typeName } from "./eval.js";

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);

/** Aeson's parser refusal for a value of the wrong kind, as Kriti passes it on. */
const expected = (what: string, value: Json): never => {
  throw new KritiFunctionError(`Error in $: parsing ${what} failed, expected ${what}, but encountered ${typeName(value)}`);
};

const text =
  (map: (s: string) => string): KritiFunction =>
  (value) =>
    typeof value === "string" ? map(value) : expected("String", value);

/** Characters RFC 3986 leaves unreserved; everything else is percent-encoded as UTF-8. */
export function escapeUri(value: string): string {
  // encodeURIComponent leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) as they are: the five outside RFC 3986's unreserved set are encoded here.
  return encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

const toTitle = (value: string) => value.replace(/[\p{L}\p{N}]+/gu, (word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase());

export const BASIC_FUNCTIONS: Record<string, KritiFunction> = {
  empty: (value) => {
    if (typeof value === "boolean") throw new KritiFunctionError("Cannot define emptiness for a boolean");
    if (value === null) return true;
    if (typeof value === "string") return value.trim() === "";
    if (typeof value === "number" || value instanceof JsonNumber) return numeric(value) === 0;
    return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
  },
  size: (value) => {
    if (value === null) return 0;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (typeof value === "number" || value instanceof JsonNumber) return value;
    if (typeof value === "string") return Array.from(value).length;
    return Array.isArray(value) ? value.length : Object.keys(value).length;
  },
  inverse: (value) => {
    if (typeof value === "string") return Array.from(value).reverse().join("");
    if (Array.isArray(value)) return [...value].reverse();
    if (typeof value === "number" || value instanceof JsonNumber) {
      if (numeric(value) === 0) throw new KritiFunctionError("Cannot invert 0");
      return 1 / numeric(value);
    }
    if (typeof value === "boolean") return !value;
    return value;
  },
  head: (value) => {
    if (Array.isArray(value)) {
      if (value.length === 0) throw new KritiFunctionError("Empty array");
      return value[0] as Json;
    }
    if (typeof value === "string") {
      if (value === "") throw new KritiFunctionError("Empty string");
      return Array.from(value)[0] as string;
    }
    throw new KritiFunctionError("Expected an array or string");
  },
  tail: (value) => {
    if (Array.isArray(value)) return value.slice(1);
    if (typeof value === "string") return Array.from(value).slice(1).join("");
    throw new KritiFunctionError("Expected an array or string");
  },
  toCaseFold: text((s) => s.toLowerCase()),
  toLower: text((s) => s.toLowerCase()),
  toUpper: text((s) => s.toUpperCase()),
  toTitle: text(toTitle),
  escapeUri: text(escapeUri),
  fromPairs: (value) => {
    if (!Array.isArray(value)) return expected("Nested Arrays", value);
    const out: { [key: string]: Json } = {};
    for (const pair of value) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string")
        throw new KritiFunctionError("Expected an array of shape [ [k1,v1], [k2,v2] ... ] - With String keys.");
      out[pair[0]] = pair[1] as Json;
    }
    return out;
  },
  toPairs: (value) => (isObject(value) ? Object.entries(value).map(([k, v]) => [k, v]) : expected("Object", value)),
  removeNulls: (value) => (Array.isArray(value) ? value.filter((item) => item !== null) : expected("Array", value)),
  concat: (value) => {
    if (!Array.isArray(value)) return expected("Array", value);
    if (value.every(Array.isArray)) return (value as Json[][]).flat();
    if (value.every((item) => typeof item === "string")) return value.join("");
    // Objects: on a clash the rightmost one's value is kept.
    if (value.every(isObject)) return Object.assign({}, ...value);
    throw new KritiFunctionError("Error in $: parsing Nested Object failed, expected Object, but encountered a mix of kinds");
  },
  not: (value) => (typeof value === "boolean" ? !value : expected("Bool", value)),
};

/**
 * Values of PostgreSQL array columns, which Hasura v2.29+ exposes as GraphQL lists (`text[]` is
 * `[String!]`). A value is bound as ONE parameter holding PostgreSQL's array text, cast to the
 * column's array type, so the SQL text does not depend on its length.
 * A string given instead of a list is PostgreSQL's array text when it reads as such
 * (`"{a,b}"`, `"{{1,2},{3,4}}"`, as Hasura before v2.29 took array values) and is left for
 * PostgreSQL to read; any other single value is a list of one (GraphQL's list coercion).
 */
import { ident, type Sql, sql } from "@platform/core";
import { JsonNumber, jsonText } from "../json/number.js";
import type { ColumnModel } from "../model/types.js";
import { isArrayLiteral } from "../schema/pg-array.js";
import { Slot, type SlotInput } from "./slot.js";

const JSON_ELEMENTS = new Set(["json", "jsonb"]);

/** An element double-quoted for PostgreSQL's array input (any element type reads a quoted element). */
function quote(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * A json/jsonb element's JSON text. As Hasura reads them, a string holding JSON text is that JSON
 * (`["{\"a\": 1}"]` is an array of one object); any other string is a JSON string.
 */
function jsonElement(value: unknown): string {
  if (typeof value !== "string") return jsonText(value);
  try {
    JSON.parse(value);
    return value;
  } catch {
    return JSON.stringify(value);
  }
}

function elementText(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return "NULL";
  if (json) return quote(jsonElement(value));
  // A nested list is one more dimension (`int[][]` columns are `int[]` to PostgreSQL).
  if (Array.isArray(value)) return arrayText(value, json);
  if (value instanceof JsonNumber) return quote(value.text);
  if (typeof value === "object") return quote(jsonText(value));
  return quote(String(value));
}

/** A list as PostgreSQL's array text: `["a", null, "b c"]` → `{"a",NULL,"b c"}`. */
export function arrayText(values: readonly unknown[], json: boolean): string {
  return `{${values.map((v) => elementText(v, json)).join(",")}}`;
}

function hasSlot(value: unknown): boolean {
  return value instanceof Slot || (Array.isArray(value) && value.some(hasSlot));
}

function resolve(value: unknown, input: SlotInput): unknown {
  if (value instanceof Slot) return value.read(input);
  return Array.isArray(value) ? value.map((v) => resolve(v, input)) : value;
}

/**
 * The parameter for an array column's value: the array text of a list, a string as the literal
 * it is, null as null. A list of plan slots (a variable's items) becomes one slot read when the
 * plan runs; a single value given for the list is a one-element array.
 */
export function arrayParam(column: ColumnModel, value: unknown): unknown {
  const json = JSON_ELEMENTS.has(column.elementType ?? "");
  const text = (v: unknown): string | null =>
    v === null || v === undefined ? null : typeof v === "string" && isArrayLiteral(v) ? v : arrayText(Array.isArray(v) ? v : [v], json);
  return hasSlot(value) ? new Slot((input) => text(resolve(value, input))) : text(value);
}

/** An array column's value as SQL: one bound parameter cast to the column's array type (`$1::"_text"`). */
export function arrayValue(column: ColumnModel, value: unknown): Sql {
  return sql`${arrayParam(column, value)}::${ident(column.pgType)}`;
}

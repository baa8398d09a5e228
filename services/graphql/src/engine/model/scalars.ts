/** PostgreSQL types to GraphQL scalars, as Hasura names them. */

const BUILT_IN: Record<string, string> = {
  int4: "Int",
  bool: "Boolean",
  float4: "Float",
  text: "String",
  varchar: "String",
};

const RENAMED: Record<string, string> = {
  int2: "smallint",
  int8: "bigint",
  float8: "float8",
  bpchar: "bpchar",
  timestamptz: "timestamptz",
};

/**
 * The GraphQL scalar of a type. Array columns are lists of their element's scalar (model/build.ts);
 * other array types (function arguments, computed fields) stay opaque scalars named after the type.
 */
export function scalarName(pgType: string): string {
  return BUILT_IN[pgType] ?? RENAMED[pgType] ?? pgType;
}

const NUMERIC = new Set(["int2", "int4", "int8", "float4", "float8", "numeric"]);
// Hasura's isComparableType: uuid is comparable (PostgreSQL's missing max(uuid) is worked around in compiler/aggregate-call.ts).
const NOT_COMPARABLE = new Set(["json", "jsonb", "geometry", "geography", "bool"]);
const TEXTUAL = new Set(["text", "varchar", "bpchar", "citext", "name"]);

export const isNumeric = (pgType: string): boolean => NUMERIC.has(pgType);
/** Columns `_inc` accepts: Hasura's numeric types, money included (no aggregates over money, though). */
export const isIncrementable = (pgType: string): boolean => NUMERIC.has(pgType) || pgType === "money";
// Element types without a btree ordering: PostgreSQL cannot take max/min of arrays of them.
const UNORDERED_ELEMENTS = new Set(["json", "xml", "point", "line", "lseg", "box", "path", "polygon", "circle"]);

/**
 * min/max eligible (Hasura's isComparableType). Hasura counts every array column as comparable
 * (max/min of `text[]` is `[String!]`); arrays of types PostgreSQL cannot order are left out here.
 */
export const isComparable = (pgType: string, elementType?: string | null): boolean =>
  elementType ? !UNORDERED_ELEMENTS.has(elementType) : !NOT_COMPARABLE.has(pgType) && !pgType.startsWith("_");
export const isTextual = (pgType: string): boolean => TEXTUAL.has(pgType);
export const isJsonb = (pgType: string): boolean => pgType === "jsonb";

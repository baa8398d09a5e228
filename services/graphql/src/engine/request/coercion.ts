/**
 * Input values checked the way Hasura's own parsers check them (it does not use graphql-js
 * coercion), with its messages: literals in the document (coercion-rule.ts) and variable
 * values at the place each variable is used.
 *
 * A leaf is read in one of four modes. Column values (comparison operands, inserted and set
 * values, primary keys, function arguments) are parsed as Postgres values from JSON: a string
 * goes through for PostgreSQL to read (Hasura's `parsePGValue` keeps it as an untyped literal),
 * numbers must fit the column's integer type. A string that no PostgreSQL could read as a
 * number, boolean or uuid is refused here, at its path, before any SQL runs.
 * `limit` takes a non-negative Int, `offset` an Int or a 64-bit integer written as a string,
 * and the few other plain arguments (`distinct`, `_is_null`, `path`, directives) take exactly
 * their GraphQL scalar.
 */
import {
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLScalarType,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from "graphql";
import { scientificText } from "../compiler/numeric-text.js";
import {
  fieldNotFound,
  floatOutOfBounds,
  integerOutOfBounds,
  jsonPath,
  jsonTypeMismatch,
  missingRequiredField,
  notAnEnumValue,
  nullForList,
  type Problem,
  problemError,
  typeMismatch,
  unexpectedNull,
} from "../errors/index.js";
import { JsonNumber } from "../json/number.js";
import { isArrayColumnList, isArrayLiteral } from "../schema/pg-array.js";
import { textProblem } from "./text-values.js";

/**
 * `action`: an action's arguments and the fields of its input objects. GraphQL's own scalars are
 * checked as GraphQL has them; every other scalar (a custom one, or a Postgres one such as
 * `uuid`) passes to the handler as given, as Hasura passes it.
 */
export type LeafMode = "column" | "strict" | "limit" | "offset" | "action";

const GRAPHQL_SCALARS = new Set(["Int", "Float", "String", "Boolean", "ID"]);
export type Segments = Array<string | number>;

/** A value to check: a GraphQL literal (`json: false`) or a JSON value from the variables. */
export type Input =
  | { kind: "int" | "float" | "number"; text: string }
  | { kind: "string"; value: string; json: boolean }
  | { kind: "enum"; value: string }
  | { kind: "boolean" | "null" | "list" | "object"; json: boolean };

const DESCRIBE: Record<Input["kind"], string> = {
  int: "an integer",
  float: "a float",
  number: "a number",
  string: "a string",
  enum: "an enum value",
  boolean: "a boolean",
  null: "null",
  list: "a list",
  object: "an object",
};

/** Aeson's names of JSON value types, for the parse errors of column values. */
const AESON: Record<Input["kind"], string> = {
  int: "Number",
  float: "Number",
  number: "Number",
  string: "String",
  enum: "String",
  boolean: "Boolean",
  null: "Null",
  list: "Array",
  object: "Object",
};

export function mismatch(type: string, expected: string, found: Input): Problem {
  return typeMismatch(type, expected, DESCRIBE[found.kind]);
}

/** A JSON value from the variables as an Input. */
export function jsonInput(value: unknown): Input {
  if (value === null || value === undefined) return { kind: "null", json: true };
  if (value instanceof JsonNumber) return { kind: "number", text: value.text };
  if (typeof value === "number") return { kind: "number", text: String(value) };
  if (typeof value === "string") return { kind: "string", value, json: true };
  if (typeof value === "boolean") return { kind: "boolean", json: true };
  return { kind: Array.isArray(value) ? "list" : "object", json: true };
}

interface Decimal {
  negative: boolean;
  /** Significant digits without leading or trailing zeros ("" for zero). */
  digits: string;
  /** value = digits × 10^exponent */
  exponent: number;
}

function decimal(text: string): Decimal {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  const [, sign = "", whole = "", fraction = "", exp = "0"] = match ?? [];
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, "").length;
  const digits = all.slice(lead).replace(/0+$/, "");
  const trailing = all.length - lead - digits.length;
  return { negative: sign === "-", digits, exponent: Number(exp) - fraction.length + trailing };
}

/** A number as Haskell's `show` prints a Scientific (`2.147483648e9`, `1.5`, `100.0`), as Hasura's messages quote it. */
function showScientific(text: string): string {
  return scientificText(text) ?? text;
}

const BOUNDS: Record<number, [bigint, bigint]> = {
  16: [-(2n ** 15n), 2n ** 15n - 1n],
  32: [-(2n ** 31n), 2n ** 31n - 1n],
  64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Null when the number is an integer of that many bits; otherwise Hasura's parse error. */
function integerProblem(text: string, bits: 16 | 32 | 64): Problem | null {
  const d = decimal(text);
  let fits = d.digits === "";
  if (!fits && d.exponent >= 0 && d.digits.length + d.exponent <= 20) {
    const magnitude = BigInt(d.digits + "0".repeat(d.exponent));
    const value = d.negative ? -magnitude : magnitude;
    const [low, high] = BOUNDS[bits] as [bigint, bigint];
    fits = value >= low && value <= high;
  }
  if (fits) return null;
  return integerOutOfBounds(showScientific(text));
}

const FLOAT4_MAX = 3.4028234663852886e38;

function floatProblem(text: string, single: boolean): Problem | null {
  const value = Math.abs(Number(text));
  if (Number.isFinite(value) && (!single || value <= FLOAT4_MAX)) return null;
  return floatOutOfBounds(showScientific(text));
}

const isNumber = (input: Input): input is { kind: "int" | "float" | "number"; text: string } =>
  input.kind === "int" || input.kind === "float" || input.kind === "number";

function strictScalar(name: string, input: Input): Problem | null {
  switch (name) {
    case "Int":
      return input.kind === "int" || input.kind === "number" ? integerProblem(input.text, 32) : mismatch(name, "a 32-bit integer", input);
    case "Float":
      return isNumber(input) ? floatProblem(input.text, false) : mismatch(name, "a float", input);
    case "String":
      return input.kind === "string" ? null : mismatch(name, "a string", input);
    case "Boolean":
      return input.kind === "boolean" ? null : mismatch(name, "a boolean", input);
    case "ID":
      if (input.kind === "string" || input.kind === "int") return null;
      return input.kind === "number" ? integerProblem(input.text, 64) : mismatch(name, "a String or a 32-bit integer", input);
    default:
      return columnScalar(name, input);
  }
}

const INTEGER_BITS: Record<string, 16 | 32 | 64> = { Int: 32, smallint: 16, bigint: 64 };
const FLOATS: Record<string, boolean> = { Float: true, float8: false, numeric: false, money: false };
const TEXTS = new Set(["String", "citext", "bpchar"]);

function aesonProblem(what: string, expected: string, input: Input): Problem {
  return jsonTypeMismatch(what, expected, AESON[input.kind]);
}

/**
 * A column's value, read as Hasura reads Postgres values from JSON: a string is always
 * accepted (PostgreSQL parses it); otherwise the JSON type must suit the column.
 * Types not listed here (uuid, dates, geometry, arrays...) are left to PostgreSQL.
 */
function columnScalar(name: string, input: Input): Problem | null {
  if (input.kind === "string") return textProblem(name, input.value);
  if (input.kind === "enum") return null;
  if (input.kind === "null") return unexpectedNull(name);
  const bits = INTEGER_BITS[name];
  if (bits)
    return isNumber(input) ? integerProblem(input.text, bits) : aesonProblem(`Integer expected for input type: ${name}`, "Number", input);
  const single = FLOATS[name];
  if (single !== undefined) {
    if (!isNumber(input)) return aesonProblem(`Float expected for input type: ${name}`, "Number", input);
    return name === "numeric" || name === "money" ? null : floatProblem(input.text, single);
  }
  if (name === "Boolean") return input.kind === "boolean" ? null : aesonProblem("Bool", "Boolean", input);
  if (TEXTS.has(name)) return aesonProblem("Text", "String", input);
  return null;
}

function enumProblem(type: GraphQLEnumType, input: Input): Problem | null {
  const name =
    input.kind === "enum"
      ? input.value
      : input.kind === "string" && input.json && /^[_A-Za-z][_0-9A-Za-z]*$/.test(input.value)
        ? input.value
        : null;
  if (name === null) return mismatch(type.name, "an enum value", input);
  const values = type.getValues();
  if (values.some((v) => v.name === name)) return null;
  return notAnEnumValue(
    type.name,
    values.map((v) => v.name),
    name,
  );
}

/** Checks one leaf value (scalar or enum) in a mode; null when Hasura would accept it. */
export function leafProblem(type: GraphQLScalarType | GraphQLEnumType, input: Input, mode: LeafMode): Problem | null {
  if (isEnumType(type)) return enumProblem(type, input);
  if (mode === "column") return columnScalar(type.name, input);
  if (mode === "action") return GRAPHQL_SCALARS.has(type.name) ? strictScalar(type.name, input) : null;
  if (type.name === "Int" && mode === "limit") {
    const ok = (input.kind === "int" || input.kind === "number") && !input.text.trim().startsWith("-");
    return ok ? integerProblem(input.text, 32) : mismatch(type.name, "a non-negative 32-bit integer", input);
  }
  if (type.name === "Int" && mode === "offset") {
    if (input.kind === "int" || input.kind === "number") return integerProblem(input.text, 64);
    if (input.kind === "string" && /^\d+$/.test(input.value)) return null;
    return mismatch(type.name, "a 32-bit integer, or a 64-bit integer represented as a string", input);
  }
  return strictScalar(type.name, input);
}

/** A null where the type wants a value. */
function nullProblem(type: GraphQLInputType, mode: LeafMode): Problem {
  const nullable = getNullableType(type);
  const input: Input = { kind: "null", json: true };
  if (isListType(nullable)) return nullForList();
  if (isInputObjectType(nullable)) return mismatch(nullable.name, "an object", input);
  return leafProblem(nullable as GraphQLScalarType | GraphQLEnumType, input, mode) ?? mismatch(nullable.name, "a value", input);
}

/** Input object fields are column values, except `_is_null` (a plain Boolean); inside an action's argument, action values. */
export function fieldMode(field: string, parent?: LeafMode): LeafMode {
  if (parent === "action") return "action";
  return field === "_is_null" ? "strict" : "column";
}

function fail(problem: Problem, path: Segments): never {
  throw problemError(problem, jsonPath(path));
}

/**
 * Checks a variable's JSON value against the type at the place it is used, as Hasura parses it
 * there; errors point into that place (`$.selectionSet.users.args.where.favorite_color._eq`).
 */
export function checkJsonValue(value: unknown, type: GraphQLInputType, mode: LeafMode, path: Segments): void {
  if (value === null || value === undefined) {
    if (isNonNullType(type)) fail(nullProblem(type, mode), path);
    return;
  }
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    // PostgreSQL array text for an array column (`"{a,b}"`) is for PostgreSQL to read.
    if (typeof value === "string" && isArrayColumnList(nullable) && isArrayLiteral(value)) return;
    const item = nullable.ofType as GraphQLInputType;
    if (Array.isArray(value)) for (const [i, v] of value.entries()) checkJsonValue(v, item, mode, [...path, i]);
    else checkJsonValue(value, item, mode, [...path, 0]);
    return;
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== "object" || Array.isArray(value) || value instanceof JsonNumber)
      fail(mismatch(nullable.name, "an object", jsonInput(value)), path);
    const record = value as Record<string, unknown>;
    const fields = nullable.getFields();
    for (const key of Object.keys(record)) if (!(key in fields)) throw fieldNotFound(key, nullable.name, jsonPath([...path, key]));
    for (const [name, field] of Object.entries(fields)) {
      if (name in record) checkJsonValue(record[name], field.type, fieldMode(name, mode), [...path, name]);
      else if (isNonNullType(field.type) && field.defaultValue === undefined) throw missingRequiredField(name, jsonPath([...path, name]));
    }
    return;
  }
  const problem = leafProblem(getNamedType(nullable) as GraphQLScalarType | GraphQLEnumType, jsonInput(value), mode);
  if (problem) fail(problem, path);
}

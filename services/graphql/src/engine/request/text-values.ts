/**
 * Strings given for column values whose type the engine can judge without PostgreSQL: integers,
 * floating and exact numbers, booleans and uuids. Hasura passes any string on for PostgreSQL to
 * read (`parsePGValue` in server/src-lib/Hasura/Backends/Postgres/SQL/Value.hs), so a string is
 * refused here only when no supported PostgreSQL version would read it as that type; the answer
 * is then a validation error at the value's path instead of a database error from the whole
 * statement. Everything else (dates, times, ranges, network types...) is left to PostgreSQL.
 *
 * The accepted forms follow PostgreSQL's input functions (https://www.postgresql.org/docs/current/datatype.html):
 * surrounding spaces, a sign, and (PostgreSQL 16+) underscores between digits and 0x/0o/0b
 * integer prefixes; NaN and Infinity for the floating and numeric types; boolean words and
 * their unique prefixes; uuids with or without hyphens between groups of four digits and braces.
 */
import { integerOutOfRange, type Problem, typeMismatch } from "../errors/index.js";

const INTEGER = /^\s*([+-]?)(0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|0[oO][0-7](?:_?[0-7])*|0[bB][01](?:_?[01])*|\d(?:_?\d)*)\s*$/;
const DECIMAL = /^\s*[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d+)?\s*$/;
const SPECIAL_NUMBER = /^\s*(?:[+-]?(?:inf|infinity)|nan)\s*$/i;
const BOOLEAN = /^\s*(?:t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|y(?:es?)?|no?|on|off?|1|0)\s*$/i;
const UUID = /^\s*\{?[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}\}?\s*$/;

const INTEGER_BITS: Record<string, 16 | 32 | 64> = { Int: 32, smallint: 16, bigint: 64 };
const NUMBERS = new Set(["Float", "float8", "numeric"]);

function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function refused(expected: string, type: string, value: string): Problem {
  return typeMismatch(type, expected, `the string ${quoted(value)}`);
}

function integerText(type: string, bits: 16 | 32 | 64, value: string): Problem | null {
  const match = INTEGER.exec(value);
  if (!match) return refused(`a ${bits}-bit integer`, type, value);
  const magnitude = BigInt((match[2] as string).replaceAll("_", ""));
  const signed = match[1] === "-" ? -magnitude : magnitude;
  const limit = 2n ** BigInt(bits - 1);
  if (signed >= -limit && signed < limit) return null;
  return integerOutOfRange(type, bits, quoted(value));
}

/** Null when PostgreSQL may read the string as a value of the column's GraphQL type. */
export function textProblem(type: string, value: string): Problem | null {
  const bits = INTEGER_BITS[type];
  if (bits) return integerText(type, bits, value);
  if (NUMBERS.has(type)) return DECIMAL.test(value) || SPECIAL_NUMBER.test(value) ? null : refused("a number", type, value);
  if (type === "Boolean") return BOOLEAN.test(value) ? null : refused("a boolean", type, value);
  if (type === "uuid") return UUID.test(value) ? null : refused("a uuid", type, value);
  return null;
}

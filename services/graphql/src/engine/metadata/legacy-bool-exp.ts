/**
 * The boolean expressions of the legacy `/v1/query` data operations (https://hasura.io/docs/1.0/graphql/core/api-reference/schema-metadata-api/syntax-defs.html#boolexp):
 * `{column: value}` (equality), `{column: {operator: value}}` with the operators spelled `$eq` or
 * `_eq`, and `$and` / `$or` / `$not` (or `_and` / `_or` / `_not`). Columns only (no
 * relationships); every value is bound as a parameter.
 */
import { ident, join, type Sql, sql, trusted } from "@platform/core";
import { HasuraError } from "../errors/index.js";
import { JsonNumber, jsonText } from "../json/number.js";
import { at, isObject, parseFailed } from "./args.js";

/** The comparison operators, as fixed SQL (never from the request). */
const COMPARISONS: Record<string, Sql> = {
  eq: trusted("="),
  ne: trusted("<>"),
  neq: trusted("<>"),
  gt: trusted(">"),
  lt: trusted("<"),
  gte: trusted(">="),
  lte: trusted("<="),
  like: trusted("LIKE"),
  nlike: trusted("NOT LIKE"),
  ilike: trusted("ILIKE"),
  nilike: trusted("NOT ILIKE"),
  similar: trusted("SIMILAR TO"),
  nsimilar: trusted("NOT SIMILAR TO"),
};

/** A bound value: long numbers as their digits, objects and arrays as JSON text (for json and jsonb columns). */
export function bound(value: unknown): Sql {
  if (value instanceof JsonNumber) return sql`${value.text}`;
  return value !== null && typeof value === "object" ? sql`${jsonText(value)}` : sql`${value}`;
}

export function unknownColumn(column: string, path: string): HasuraError {
  return new HasuraError("not-exists", `no such column exists: "${column}"`, path);
}

function operatorName(key: string): string | undefined {
  return key.startsWith("$") || key.startsWith("_") ? key.slice(1) : undefined;
}

function columnCondition(column: string, spec: unknown, path: string): Sql {
  const target = sql`${ident(column)}`;
  if (!isObject(spec)) return spec === null ? sql`${target} IS NULL` : sql`${target} = ${bound(spec)}`;
  const parts = Object.entries(spec).map(([key, value]) => {
    const op = operatorName(key);
    const here = at(path, key);
    if (op === undefined) throw parseFailed(`unknown operator "${key}"`, here);
    const comparison = Object.hasOwn(COMPARISONS, op) ? COMPARISONS[op] : undefined;
    if (comparison) return sql`${target} ${comparison} ${bound(value)}`;
    if (op === "in" || op === "nin") {
      if (!Array.isArray(value)) throw parseFailed("expected Array", here);
      if (value.length === 0) return op === "in" ? sql`false` : sql`true`;
      const values = join(value.map(bound));
      return op === "in" ? sql`${target} IN (${values})` : sql`${target} NOT IN (${values})`;
    }
    if (op === "is_null") {
      if (typeof value !== "boolean") throw parseFailed("expected Boolean", here);
      return value ? sql`${target} IS NULL` : sql`${target} IS NOT NULL`;
    }
    throw parseFailed(`unknown operator "${key}"`, here);
  });
  return parts.length === 0 ? sql`true` : join(parts, sql` AND `);
}

/** The SQL condition of `exp` over `columns` (the table's). */
export function boolExp(exp: unknown, columns: ReadonlySet<string>, path: string): Sql {
  if (!isObject(exp)) throw parseFailed("expected Object", path);
  const parts = Object.entries(exp).map(([key, value]) => {
    const here = at(path, key);
    const op = operatorName(key);
    if (op === "and" || op === "or") {
      if (!Array.isArray(value)) throw parseFailed("expected Array", here);
      if (value.length === 0) return op === "and" ? sql`true` : sql`false`;
      const items = value.map((v, i) => sql`(${boolExp(v, columns, at(here, i))})`);
      return join(items, op === "and" ? sql` AND ` : sql` OR `);
    }
    if (op === "not") return sql`NOT (${boolExp(value, columns, here)})`;
    if (!columns.has(key)) throw unknownColumn(key, here);
    return columnCondition(key, value, here);
  });
  return parts.length === 0
    ? sql`true`
    : join(
        parts.map((p) => sql`(${p})`),
        sql` AND `,
      );
}

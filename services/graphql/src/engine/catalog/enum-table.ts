/**
 * Enum tables (`is_enum: true`, https://hasura.io/docs/latest/schema/postgres/enums): a
 * single-column text primary key whose values become GraphQL enum values, plus at most one more
 * text column used as their descriptions.
 * The messages follow Hasura's `fetchAndValidateEnumValues` word for word.
 */
import { ident, type Queryable, sql } from "@platform/core";
import { enumTableUnusable } from "../errors/index.js";
import type { EnumValue, PgColumn, PgTable } from "./types.js";

/** Hasura's names for Postgres types in messages (its PGScalarType texts). */
const HASURA_TYPE_NAMES: Record<string, string> = {
  int2: "smallint",
  int4: "integer",
  int8: "bigint",
  float4: "real",
  bool: "boolean",
};

/** The scalar Hasura sees for a column: domains count as their base type. */
export function columnScalarType(column: PgColumn): string {
  return column.baseType ?? column.type;
}

function hasuraTypeName(column: PgColumn): string {
  const type = columnScalarType(column);
  return HASURA_TYPE_NAMES[type] ?? type;
}

const quote = (s: string): string => `"${s}"`;
const bySort = (names: string[]): string[] => [...names].sort();

function displayTableName(table: PgTable): string {
  return table.schema === "public" ? table.name : `${table.schema}.${table.name}`;
}

function typeMismatch(description: string, column: PgColumn): string {
  return `the table’s ${description} (${quote(column.name)}) must have type ${quote("text")}, not type ${quote(hasuraTypeName(column))}`;
}

interface Structure {
  problems: string[];
  key: PgColumn | null;
  description: PgColumn | null;
}

function checkStructure(table: PgTable): Structure {
  const problems: string[] = [];
  let key: PgColumn | null = null;
  const pk = table.primaryKey;
  if (!pk) problems.push("the table must have a primary key");
  else if (pk.columns.length > 1) {
    problems.push(`the table’s primary key must not span multiple columns (${bySort(pk.columns).join(", ")})`);
  } else {
    const column = table.columns.find((c) => c.name === pk.columns[0]);
    if (column && columnScalarType(column) === "text") key = column;
    else if (column) problems.push(typeMismatch("primary key", column));
  }
  // Hasura removes the key column only when the key itself was valid.
  const others = table.columns.filter((c) => c !== key);
  let description: PgColumn | null = null;
  if (others.length === 1) {
    const only = others[0] as PgColumn;
    if (columnScalarType(only) === "text") description = only;
    else problems.push(typeMismatch("comment column", only));
  } else if (others.length > 1) {
    const names = bySort(others.map((c) => c.name));
    problems.push(
      `the table must have exactly one primary key and optionally one comment column, not ${names.length} columns (${names.join(", ")})`,
    );
  }
  return { problems, key, description };
}

function message(table: PgTable, problems: readonly string[]): string {
  const reasons =
    problems.length === 1 ? `because ${problems[0]}` : `for the following reasons:\n${problems.map((p) => `  • ${p}\n`).join("")}`;
  return `the table ${quote(displayTableName(table))} cannot be used as an enum ${reasons}`;
}

/** Hasura's text when `table` cannot be an enum table by its shape, or null when it can. */
export function validateEnumTable(table: PgTable): string | null {
  const { problems } = checkStructure(table);
  return problems.length === 0 ? null : message(table, problems);
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function isValidEnumValueName(value: string): boolean {
  return GRAPHQL_NAME.test(value) && value !== "true" && value !== "false" && value !== "null";
}

function invalidNamesProblem(values: string[]): string {
  const sorted = bySort(values);
  const last = sorted[sorted.length - 1] as string;
  if (sorted.length === 1) return `the value ${quote(last)} is not a valid GraphQL enum value name`;
  const plural = " are not valid GraphQL enum value names";
  if (sorted.length === 2) return `the values ${quote(sorted[0] as string)} and ${quote(last)}${plural}`;
  // Hasura quotes only the last one here.
  return `the values ${sorted.slice(0, -1).join(", ")}, and ${quote(last)}${plural}`;
}

/**
 * Reads the values of an enum table (the key column, and the description column when there is
 * one), ordered by value (byte order). Throws HasuraError `constraint-violation` with Hasura's message when
 * the table's shape or contents make it unusable as an enum.
 */
export async function loadEnumValues(db: Queryable, table: PgTable): Promise<EnumValue[]> {
  const { problems, key, description } = checkStructure(table);
  if (!key) throw enumTableUnusable(message(table, problems));
  const target = ident(table.schema, table.name);
  const descriptionSql = description ? sql`${ident(description.name)}::text` : sql`NULL::text`;
  const { rows } = await db.query<{ value: string; description: string | null }>(
    sql`SELECT ${ident(key.name)} AS value, ${descriptionSql} AS description FROM ${target} ORDER BY ${ident(key.name)} COLLATE "C"`,
  );
  if (rows.length === 0) problems.push("the table must have at least one row");
  const invalid = rows.filter((r) => !isValidEnumValueName(r.value)).map((r) => r.value);
  if (invalid.length > 0) problems.push(invalidNamesProblem(invalid));
  if (problems.length > 0) throw enumTableUnusable(message(table, problems));
  return rows.map((r) => ({ value: r.value, description: r.description }));
}

/**
 * Mutation statements, built but not run (executors/mutation.ts runs them in the request's
 * transaction). Inserted and updated rows are remembered as the text of their row type (from the
 * statement's own RETURNING, so views without a ctid work too) and turned back into rows of that
 * type in one final statement that builds the response JSON, so `returning` sees nested inserts
 * and relationships; deletes build their response from the DELETE's own RETURNING. As in Hasura,
 * `returning` lists every written row: the select permission decides its columns and what
 * relationships show, not which written rows appear.
 */
import { and, ident, join, type Sql, sql } from "@platform/core";
import {
  atArgument,
  columnInSeveralOperators,
  erroneousColumnName,
  jsonPath,
  noWritePermission,
  permissionCheckFailed,
  unexpectedEnumValue,
} from "../errors/index.js";
import { JsonNumber } from "../json/number.js";
import { deleteAccess, insertAccess, updateAccess, type WriteAccess } from "../model/access.js";
import type { ColumnModel, TableModel } from "../model/types.js";
import type { InsertObject, MutationField, MutationOutput, Path, RowField, UpdateChanges } from "../plan/types.js";
import { asList } from "../plan/values.js";
import { arrayValue } from "./arrays.js";
import { compileBoolExp, jsonAware } from "./boolexp.js";
import { type CompileContext, isSessionVariable } from "./context.js";
import { scientificText } from "./numeric-text.js";
import { rowJson } from "./select.js";

function requireAccess(access: WriteAccess | null, what: string, table: TableModel): WriteAccess {
  if (!access) throw noWritePermission(what, table.name);
  return access;
}

function presetValue(ctx: CompileContext, column: ColumnModel, value: unknown): Sql {
  if (isSessionVariable(value)) return sql`${ctx.sessionValue(value)}::${ident(column.pgType)}`;
  return column.elementType ? arrayValue(column, value) : literal(value);
}

function literal(value: unknown): Sql {
  return jsonAware("", value);
}

/** A GraphQL number for a numeric (or money) column, as the text Hasura writes (which fixes numeric's display scale). */
function numberText(column: ColumnModel, value: unknown): string | null {
  if (column.pgType !== "numeric" && column.pgType !== "money") return null;
  return typeof value === "number" || value instanceof JsonNumber ? scientificText(value) : null;
}

/** A value written to a column. */
function columnLiteral(column: ColumnModel, value: unknown): Sql {
  if (column.elementType) return arrayValue(column, value);
  const text = column.pgType === "numeric" ? numberText(column, value) : null;
  return text !== null ? sql`${text}` : jsonAware(column.pgType, value);
}

/** What an INSERT or UPDATE returns for each row: its text as the row type, and whether the permission's check holds. */
export interface WrittenRow {
  __row: string;
  __check: boolean;
  [column: string]: unknown;
}

/** Refuses the write when a row fails its permission's check (Hasura reports it at `path`). */
export function checked(rows: WrittenRow[], path: string): void {
  if (rows.some((r) => r.__check === false)) throw permissionCheckFailed(path);
}

/**
 * The INSERT of one object, run after its object-relationship parents: `fromParents` are the key
 * columns their rows determine, `forced` those its own parent row determines (for an object of an
 * array relationship).
 */
export function insertStatement(
  ctx: CompileContext,
  object: InsertObject,
  fromParents: ReadonlyMap<string, unknown>,
  forced: ReadonlyMap<string, unknown>,
): Sql {
  const { table } = object;
  const access = requireAccess(insertAccess(table, ctx.session.role), "insert", table);
  const values = new Map<string, Sql>();
  for (const [name, value] of fromParents) values.set(name, literal(value));
  for (const [key, value] of Object.entries(object.columns)) {
    const column = table.columnByField.get(key);
    if (column && !values.has(column.name)) values.set(column.name, columnLiteral(column, value));
  }
  for (const [name, value] of forced) values.set(name, literal(value));
  for (const [name, value] of Object.entries(access.presets)) {
    const column = table.columnByName.get(name);
    if (column) values.set(name, presetValue(ctx, column, value));
  }
  const alias = ctx.alias();
  const target = sql`${ident(table.schema, table.name)} AS ${ident(alias)}`;
  const body =
    values.size === 0
      ? sql`DEFAULT VALUES`
      : sql`(${join([...values.keys()].map((c) => sql`${ident(c)}`))}) VALUES (${join([...values.values()])})`;
  const { onConflict, conflictPath } = object;
  const conflict = onConflict
    ? atArgument(jsonPath(conflictPath), () => conflictClause(ctx, table, alias, onConflict, conflictPath))
    : { clause: sql``, check: null };
  const insertCheck = access.check ? compileBoolExp(ctx, table, alias, access.check, "permission") : sql`true`;
  // An upsert that updated the existing row (its xmax is set) answers to the update permission's check.
  const check = conflict.check
    ? sql`CASE WHEN ${ident(alias, "xmax")} = 0 THEN (${insertCheck}) ELSE (${conflict.check}) END`
    : insertCheck;
  return sql`INSERT INTO ${target} ${body}${conflict.clause} RETURNING ${ident(alias)}.*, ROW(${ident(alias)}.*)::text AS "__row", (${check}) AS "__check"`;
}

/** `ON CONFLICT ...`, and the update permission's check for rows it updates (null when none applies). */
function conflictClause(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  spec: Record<string, unknown>,
  path: Path,
): { clause: Sql; check: Sql | null } {
  const constraint = String(spec.constraint);
  if (!table.uniqueConstraints.some((u) => u.name === constraint)) {
    throw unexpectedEnumValue(constraint, `${table.typeName}_constraint`);
  }
  // A column named twice is updated once (PostgreSQL refuses two assignments to one column).
  const fields = [...new Set(asList(spec.update_columns) as string[])];
  const columns = fields.map((field) => table.columnByField.get(field)?.name ?? field);
  if (columns.length === 0) return { clause: sql` ON CONFLICT ON CONSTRAINT ${ident(constraint)} DO NOTHING`, check: null };
  const update = requireAccess(updateAccess(table, ctx.session.role), "update", table);
  // `_PLACEHOLDER` fills the update column enum of a role that may update no column; it names nothing.
  if (fields.some((field) => !update.columns.some((c) => c.field === field))) throw erroneousColumnName(jsonPath(path));
  const sets = columns.map((c) => sql`${ident(c)} = EXCLUDED.${ident(c)}`);
  for (const [name, value] of Object.entries(update.presets)) {
    const column = table.columnByName.get(name);
    if (column) sets.push(sql`${ident(name)} = ${presetValue(ctx, column, value)}`);
  }
  const where = and([
    update.filter ? compileBoolExp(ctx, table, alias, update.filter, "permission") : sql``,
    compileBoolExp(ctx, table, alias, spec.where, "graphql"),
  ]);
  return {
    clause: sql` ON CONFLICT ON CONSTRAINT ${ident(constraint)} DO UPDATE SET ${join(sets)} WHERE ${where}`,
    check: update.check ? compileBoolExp(ctx, table, alias, update.check, "permission") : null,
  };
}

const UPDATE_OPERATORS = ["_set", "_inc", "_append", "_prepend", "_delete_key", "_delete_elem", "_delete_at_path"];

function setExpression(alias: string, column: ColumnModel, operator: string, value: unknown): Sql {
  const current = sql`${ident(alias, column.name)}`;
  switch (operator) {
    case "_inc":
      // money has no `+ numeric`: the increment goes through numeric, which also reads exponent forms such as -2e-2.
      return column.pgType === "money"
        ? sql`${current} + ${numberText(column, value) ?? literal(value)}::numeric::money`
        : sql`${current} + ${columnLiteral(column, value)}`;
    // The operand is a jsonb value: a string is a JSON string, not JSON text to parse.
    case "_append":
      return sql`${current} || ${jsonAware("jsonb", value)}::jsonb`;
    case "_prepend":
      return sql`${jsonAware("jsonb", value)}::jsonb || ${current}`;
    case "_delete_key":
      return sql`${current} - ${value}::text`;
    case "_delete_elem":
      return sql`${current} - ${value}::int`;
    case "_delete_at_path":
      return sql`${current} #- ${`{${(asList(value) as string[]).map((p) => `"${String(p).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`}::text[]`;
    default:
      return columnLiteral(column, value);
  }
}

/** The UPDATE of one set of changes; null when it sets nothing (no operator given, no preset). */
export function updateStatement(ctx: CompileContext, table: TableModel, changes: UpdateChanges, path: Path): Sql | null {
  const { args, pk } = changes;
  const access = requireAccess(updateAccess(table, ctx.session.role), "update", table);
  const alias = ctx.alias();
  const seen = new Map<string, string[]>();
  const sets: Sql[] = [];
  for (const operator of UPDATE_OPERATORS) {
    for (const [field, value] of Object.entries((args[operator] ?? {}) as Record<string, unknown>)) {
      const column = table.columnByField.get(field);
      if (!column) continue;
      seen.set(column.field, [...(seen.get(column.field) ?? []), operator]);
      sets.push(sql`${ident(column.name)} = ${setExpression(alias, column, operator, value)}`);
    }
  }
  const repeated = [...seen].filter(([, ops]) => ops.length > 1).map(([field]) => `'${field}'`);
  if (repeated.length > 0) throw columnInSeveralOperators(repeated, jsonPath([...path, "args"]));
  for (const [name, value] of Object.entries(access.presets)) {
    const column = table.columnByName.get(name);
    if (column) sets.push(sql`${ident(name)} = ${presetValue(ctx, column, value)}`);
  }
  if (sets.length === 0) return null;
  const where = and([
    access.filter ? compileBoolExp(ctx, table, alias, access.filter, "permission") : sql``,
    pk
      ? pkCondition(table, alias, pk)
      : atArgument(jsonPath([...path, "args", "where"]), () => compileBoolExp(ctx, table, alias, args.where, "graphql")),
  ]);
  const check = access.check ? compileBoolExp(ctx, table, alias, access.check, "permission") : sql`true`;
  return sql`UPDATE ${ident(table.schema, table.name)} AS ${ident(alias)} SET ${join(sets)} WHERE ${where} RETURNING ROW(${ident(alias)}.*)::text AS "__row", (${check}) AS "__check"`;
}

function pkCondition(table: TableModel, alias: string, values: Record<string, unknown>): Sql {
  return and(
    (table.primaryKey ?? []).map((name) => sql`${ident(alias, name)} = ${literal(values[table.columnByName.get(name)?.field ?? name])}`),
  );
}

/**
 * Rows written earlier in this transaction, in write order: each row text cast back to the
 * table's row type, so the alias is a row of the table (or view) for columns, relationships
 * and functions taking the row.
 */
function writtenRows(ctx: CompileContext, table: TableModel, rows: string[], fields: RowField[], single: boolean): Sql {
  const alias = ctx.alias();
  const list = ctx.alias();
  const row = rowJson(ctx, table, alias, fields);
  const from = sql`FROM unnest(${rows}::text[]) WITH ORDINALITY AS ${ident(list)}("r", "n") CROSS JOIN LATERAL CAST(${ident(list, "r")} AS ${ident(table.schema, table.name)}) AS ${ident(alias)}`;
  if (single) return sql`(SELECT ${row} ${from} ORDER BY ${ident(list, "n")} LIMIT 1)`;
  return sql`(SELECT coalesce(json_agg(${row} ORDER BY ${ident(list, "n")}), '[]'::json) ${from})`;
}

/** `{affected_rows, returning}` in selection order, `returning` built by `rows` from its row fields. */
function responseJson(output: Extract<MutationOutput, { kind: "response" }>, affected: Sql, rows: (fields: RowField[]) => Sql): Sql {
  const pairs = output.fields.map((f) => {
    if (f.kind === "typename") return sql`${f.key}::text, ${f.typeName}::text`;
    if (f.kind === "affected_rows") return sql`${f.key}::text, ${affected}`;
    return sql`${f.key}::text, ${rows(f.fields)}`;
  });
  return sql`json_build_object(${join(pairs)})`;
}

/** `SELECT (expression)::text AS result`: a mutation field's JSON text as one value. */
export function asText(expression: Sql): Sql {
  return sql`SELECT (${expression})::text AS result`;
}

/**
 * The statement answering an insert or update from the rows it wrote (their texts, in write
 * order): the one row of `*_one` / `*_by_pk` (null when nothing was written: no statement), or
 * `{affected_rows, returning}`.
 */
export function writtenResponse(
  ctx: CompileContext,
  table: TableModel,
  output: MutationOutput,
  rows: string[],
  affected: number,
): Sql | null {
  if (output.kind === "row") return rows.length === 0 ? null : asText(writtenRows(ctx, table, rows, output.fields, true));
  return asText(responseJson(output, sql`${affected}::int`, (fields) => writtenRows(ctx, table, rows, fields, false)));
}

/** A delete and its answer in one statement: `WITH deleted AS (DELETE ... RETURNING *) SELECT json`. */
export function deleteStatement(ctx: CompileContext, node: Extract<MutationField, { kind: "delete" }>): Sql {
  const { table, pk, args, output, path } = node;
  const access = requireAccess(deleteAccess(table, ctx.session.role), "delete", table);
  const alias = ctx.alias();
  const where = and([
    access.filter ? compileBoolExp(ctx, table, alias, access.filter, "permission") : sql``,
    pk
      ? pkCondition(table, alias, pk)
      : atArgument(jsonPath([...path, "args", "where"]), () => compileBoolExp(ctx, table, alias, args.where, "graphql")),
  ]);
  const deleted = ctx.alias();
  const cte = sql`WITH ${ident(deleted)} AS (DELETE FROM ${ident(table.schema, table.name)} AS ${ident(alias)} WHERE ${where} RETURNING ${ident(alias)}.*)`;
  const rowsFrom = (fields: RowField[], single: boolean) => {
    const rowAlias = ctx.alias();
    const row = rowJson(ctx, table, rowAlias, fields);
    return single
      ? sql`(SELECT ${row} FROM ${ident(deleted)} AS ${ident(rowAlias)} LIMIT 1)`
      : sql`(SELECT coalesce(json_agg(${row}), '[]'::json) FROM ${ident(deleted)} AS ${ident(rowAlias)})`;
  };
  if (output.kind === "row") return sql`${cte} ${asText(rowsFrom(output.fields, true))}`;
  const response = responseJson(output, sql`(SELECT count(*) FROM ${ident(deleted)})::int`, (fields) => rowsFrom(fields, false));
  return sql`${cte} SELECT ${response}::text AS result`;
}

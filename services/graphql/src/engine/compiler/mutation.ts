/**
 * Mutations: each root field runs as a few statements inside the request's transaction. Inserted
 * and updated rows are remembered as the text of their row type (from the statement's own
 * RETURNING, so views without a ctid work too) and turned back into rows of that type in one final
 * statement that builds the response JSON, so `returning` sees nested inserts and relationships;
 * deletes build their response from the DELETE's own RETURNING. As in Hasura, `returning` lists
 * every written row: the select permission decides its columns and what relationships show, not
 * which written rows appear.
 */
import { and, ident, join, type Queryable, type Sql, sql } from "@platform/core";
import { type GraphQLField, type GraphQLObjectType, getNamedType } from "graphql";
import {
  atArgument,
  columnInSeveralOperators,
  columnsDeterminedByParent,
  erroneousColumnName,
  jsonPath,
  noWritePermission,
  objectRelationshipDetermined,
  permissionCheckFailed,
  unexpectedEnumValue,
} from "../errors.js";
import { JsonNumber } from "../json-number.js";
import { deleteAccess, insertAccess, updateAccess, type WriteAccess } from "../model/access.js";
import type { ColumnModel, TableModel } from "../model/types.js";
import { fieldInfo, type MutationKind } from "../schema/field-info.js";
import { arrayValue } from "./arrays.js";
import { compileBoolExp, jsonAware } from "./boolexp.js";
import { type CompileContext, isSessionVariable } from "./context.js";
import { type Collected, collectFields } from "./fields.js";
import { scientificText } from "./numeric-text.js";
import { type Path, rowJson } from "./select.js";
import { argumentValues, asList } from "./values.js";

interface Written {
  /** Each written row as the text of the table's row type (`ROW(t.*)::text`), in write order. */
  rows: string[];
  affected: number;
}

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

function checked(rows: Array<{ __check?: unknown }>, path: string): void {
  if (rows.some((r) => r.__check === false)) throw permissionCheckFailed(path);
}

/** Inserts one input object (object-relationship parents first, array-relationship children after). */
async function insertOne(
  ctx: CompileContext,
  tx: Queryable,
  table: TableModel,
  input: Record<string, unknown>,
  forced: Map<string, unknown>,
  onConflict: Record<string, unknown> | undefined,
  path: Path,
  conflictPath: Path,
): Promise<{ row: Record<string, unknown> | null; written: Written }> {
  const access = requireAccess(insertAccess(table, ctx.session.role), "insert", table);
  const values = new Map<string, Sql>();
  const written: Written = { rows: [], affected: 0 };
  for (const [key, value] of Object.entries(input)) {
    const rel = table.relationships.get(key);
    if (rel?.kind !== "object" || rel.insertAfter || value === null) continue;
    const spec = value as { data: Record<string, unknown>; on_conflict?: Record<string, unknown> };
    for (const [local] of rel.mapping) {
      const column = table.columnByName.get(local);
      if (column && column.field in input) {
        throw objectRelationshipDetermined(rel.name, column.field, jsonPath([...path, rel.name]));
      }
    }
    const parent = await insertOne(
      ctx,
      tx,
      ctx.table(rel.target),
      spec.data,
      new Map(),
      spec.on_conflict,
      [...path, rel.name, "data"],
      [...path, rel.name, "on_conflict"],
    );
    written.affected += parent.written.affected;
    for (const [local, remote] of rel.mapping) values.set(local, literal(parent.row?.[remote] ?? null));
  }
  for (const [key, value] of Object.entries(input)) {
    const column = table.columnByField.get(key);
    if (column && !values.has(column.name)) values.set(column.name, columnLiteral(column, value));
  }
  for (const [name, value] of forced) {
    const field = table.columnByName.get(name)?.field ?? name;
    if (field in input) {
      throw columnsDeterminedByParent(field, jsonPath(path));
    }
    values.set(name, literal(value));
  }
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
  const conflict = onConflict
    ? atArgument(jsonPath(conflictPath), () => conflictClause(ctx, table, alias, onConflict, conflictPath))
    : { clause: sql``, check: null };
  const insertCheck = access.check ? compileBoolExp(ctx, table, alias, access.check, "permission") : sql`true`;
  // An upsert that updated the existing row (its xmax is set) answers to the update permission's check.
  const check = conflict.check
    ? sql`CASE WHEN ${ident(alias, "xmax")} = 0 THEN (${insertCheck}) ELSE (${conflict.check}) END`
    : insertCheck;
  const { rows } = await tx.query<Record<string, unknown>>(
    sql`INSERT INTO ${target} ${body}${conflict.clause} RETURNING ${ident(alias)}.*, ROW(${ident(alias)}.*)::text AS "__row", (${check}) AS "__check"`,
  );
  checked(rows, jsonPath(path.slice(0, path.lastIndexOf("args") + 2)));
  const row = rows[0] ?? null;
  if (row) {
    written.rows.push(String(row.__row));
    written.affected += 1;
  }
  for (const [key, value] of Object.entries(input)) {
    const rel = table.relationships.get(key);
    if (!rel?.insertAfter || !row || value === null) continue;
    const spec = value as { data: Array<Record<string, unknown>> | Record<string, unknown>; on_conflict?: Record<string, unknown> };
    const fk = new Map(rel.mapping.map(([local, remote]) => [remote, row[local]]));
    const children = asList(spec.data) as Array<Record<string, unknown>>;
    for (const [i, child] of children.entries()) {
      const childPath = Array.isArray(spec.data) ? [...path, rel.name, "data", i] : [...path, rel.name, "data"];
      const inserted = await insertOne(ctx, tx, ctx.table(rel.target), child, fk, spec.on_conflict, childPath, [
        ...path,
        rel.name,
        "on_conflict",
      ]);
      written.affected += inserted.written.affected;
    }
  }
  return { row, written };
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

async function updateRows(
  ctx: CompileContext,
  tx: Queryable,
  table: TableModel,
  args: Record<string, unknown>,
  pk: Record<string, unknown> | null,
  path: Path,
): Promise<Written> {
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
  if (sets.length === 0) return { rows: [], affected: 0 };
  const where = and([
    access.filter ? compileBoolExp(ctx, table, alias, access.filter, "permission") : sql``,
    pk
      ? pkCondition(table, alias, pk)
      : atArgument(jsonPath([...path, "args", "where"]), () => compileBoolExp(ctx, table, alias, args.where, "graphql")),
  ]);
  const check = access.check ? compileBoolExp(ctx, table, alias, access.check, "permission") : sql`true`;
  const { rows } = await tx.query<{ __row: string; __check: boolean }>(
    sql`UPDATE ${ident(table.schema, table.name)} AS ${ident(alias)} SET ${join(sets)} WHERE ${where} RETURNING ROW(${ident(alias)}.*)::text AS "__row", (${check}) AS "__check"`,
  );
  // Hasura reports a failed update check at the root of the request.
  checked(rows, "$");
  return { rows: rows.map((r) => r.__row), affected: rows.length };
}

function pkCondition(table: TableModel, alias: string, values: Record<string, unknown>): Sql {
  return and(
    (table.primaryKey ?? []).map((name) => sql`${ident(alias, name)} = ${literal(values[table.columnByName.get(name)?.field ?? name])}`),
  );
}

function objectType(def: GraphQLField<unknown, unknown>): GraphQLObjectType {
  return getNamedType(def.type) as GraphQLObjectType;
}

/**
 * Rows written earlier in this transaction, in write order: each row text cast back to the
 * table's row type, so the alias is a row of the table (or view) for columns, relationships
 * and functions taking the row.
 */
function writtenRows(
  ctx: CompileContext,
  table: TableModel,
  rows: string[],
  field: Collected,
  type: GraphQLObjectType,
  path: Path,
  single: boolean,
): Sql {
  const alias = ctx.alias();
  const list = ctx.alias();
  const fields = collectFields(field.selections, type.name, ctx.fragments, ctx.variables);
  const row = rowJson(ctx, table, alias, fields, type, path);
  const from = sql`FROM unnest(${rows}::text[]) WITH ORDINALITY AS ${ident(list)}("r", "n") CROSS JOIN LATERAL CAST(${ident(list, "r")} AS ${ident(table.schema, table.name)}) AS ${ident(alias)}`;
  if (single) return sql`(SELECT ${row} ${from} ORDER BY ${ident(list, "n")} LIMIT 1)`;
  return sql`(SELECT coalesce(json_agg(${row} ORDER BY ${ident(list, "n")}), '[]'::json) ${from})`;
}

/** `{affected_rows, returning}` in selection order; `rows` builds the returning list from a given alias source. */
function responseJson(
  ctx: CompileContext,
  type: GraphQLObjectType,
  field: Collected,
  affected: number,
  returning: (f: Collected, t: GraphQLObjectType) => Sql,
): Sql {
  const pairs: Sql[] = [];
  for (const f of collectFields(field.selections, type.name, ctx.fragments, ctx.variables)) {
    const def = type.getFields()[f.name];
    const kind = f.name === "__typename" ? "__typename" : fieldInfo(def?.extensions)?.kind;
    if (kind === "__typename") pairs.push(sql`${f.responseKey}::text, ${type.name}::text`);
    else if (kind === "affected_rows") pairs.push(sql`${f.responseKey}::text, ${affected}::int`);
    else if (kind === "returning" && def) pairs.push(sql`${f.responseKey}::text, ${returning(f, objectType(def))}`);
  }
  return sql`json_build_object(${join(pairs)})`;
}

async function text(tx: Queryable, expression: Sql): Promise<string> {
  const { rows } = await tx.query<{ result: string | null }>(sql`SELECT (${expression})::text AS result`);
  return rows[0]?.result ?? "null";
}

/** Runs one mutation root field inside the request's transaction and returns its JSON text. */
export async function runMutationField(
  ctx: CompileContext,
  tx: Queryable,
  table: TableModel,
  kind: MutationKind,
  field: Collected,
  def: GraphQLField<unknown, unknown>,
): Promise<string> {
  const args = argumentValues(field.node.arguments, ctx.variables, def.args);
  const path: Path = ["selectionSet", field.responseKey];
  const type = objectType(def);
  if (kind === "insert" || kind === "insert_one") {
    const objects = kind === "insert" ? (asList(args.objects) as Array<Record<string, unknown>>) : [args.object as Record<string, unknown>];
    const written: Written = { rows: [], affected: 0 };
    for (const [i, object] of objects.entries()) {
      const objectPath = kind === "insert" ? [...path, "args", "objects", i] : [...path, "args", "object"];
      const one = await insertOne(ctx, tx, table, object, new Map(), args.on_conflict as Record<string, unknown> | undefined, objectPath, [
        ...path,
        "args",
        "on_conflict",
      ]);
      written.rows.push(...one.written.rows.slice(0, 1));
      written.affected += one.written.affected;
    }
    if (kind === "insert_one")
      return written.rows.length === 0 ? "null" : text(tx, writtenRows(ctx, table, written.rows, field, type, path, true));
    return text(
      tx,
      responseJson(ctx, type, field, written.affected, (f, t) =>
        writtenRows(ctx, table, written.rows, f, t, [...path, "selectionSet", f.responseKey], false),
      ),
    );
  }
  if (kind === "update" || kind === "update_by_pk") {
    const pk = kind === "update_by_pk" ? ((args.pk_columns ?? {}) as Record<string, unknown>) : null;
    const written = await updateRows(ctx, tx, table, args, pk, path);
    if (kind === "update_by_pk")
      return written.rows.length === 0 ? "null" : text(tx, writtenRows(ctx, table, written.rows, field, type, path, true));
    return text(
      tx,
      responseJson(ctx, type, field, written.affected, (f, t) =>
        writtenRows(ctx, table, written.rows, f, t, [...path, "selectionSet", f.responseKey], false),
      ),
    );
  }
  if (kind === "update_many") {
    const results: string[] = [];
    for (const update of asList(args.updates) as Array<Record<string, unknown>>) {
      const written = await updateRows(ctx, tx, table, update, null, path);
      results.push(
        await text(
          tx,
          responseJson(ctx, type, field, written.affected, (f, t) =>
            writtenRows(ctx, table, written.rows, f, t, [...path, "selectionSet", f.responseKey], false),
          ),
        ),
      );
    }
    return `[${results.join(",")}]`;
  }
  return deleteRows(ctx, tx, table, kind === "delete_by_pk" ? args : null, args, field, type, path);
}

async function deleteRows(
  ctx: CompileContext,
  tx: Queryable,
  table: TableModel,
  pk: Record<string, unknown> | null,
  args: Record<string, unknown>,
  field: Collected,
  type: GraphQLObjectType,
  path: Path,
): Promise<string> {
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
  const rowsFrom = (f: Collected, t: GraphQLObjectType, single: boolean) => {
    const rowAlias = ctx.alias();
    const row = rowJson(ctx, table, rowAlias, collectFields(f.selections, t.name, ctx.fragments, ctx.variables), t, [
      ...path,
      "selectionSet",
      f.responseKey,
    ]);
    return single
      ? sql`(SELECT ${row} FROM ${ident(deleted)} AS ${ident(rowAlias)} LIMIT 1)`
      : sql`(SELECT coalesce(json_agg(${row}), '[]'::json) FROM ${ident(deleted)} AS ${ident(rowAlias)})`;
  };
  if (pk) {
    const { rows } = await tx.query<{ result: string | null }>(sql`${cte} SELECT (${rowsFrom(field, type, true)})::text AS result`);
    return rows[0]?.result ?? "null";
  }
  const count = sql`(SELECT count(*) FROM ${ident(deleted)})::int`;
  const pairs: Sql[] = [];
  for (const f of collectFields(field.selections, type.name, ctx.fragments, ctx.variables)) {
    const kind = f.name === "__typename" ? "__typename" : fieldInfo(type.getFields()[f.name]?.extensions)?.kind;
    if (kind === "__typename") pairs.push(sql`${f.responseKey}::text, ${type.name}::text`);
    else if (kind === "affected_rows") pairs.push(sql`${f.responseKey}::text, ${count}`);
    else if (kind === "returning")
      pairs.push(
        sql`${f.responseKey}::text, ${rowsFrom(f, objectType(type.getFields()[f.name] as GraphQLField<unknown, unknown>), false)}`,
      );
  }
  const { rows } = await tx.query<{ result: string }>(sql`${cte} SELECT json_build_object(${join(pairs)})::text AS result`);
  return rows[0]?.result ?? "null";
}

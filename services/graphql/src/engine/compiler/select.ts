/**
 * Selections to one SQL expression that builds the field's JSON inside PostgreSQL
 * (as Hasura's own SQL does): rows as row_to_json of a sub-select in selection order, lists
 * as json_agg, object relationships and array relationships as correlated sub-selects, so
 * a whole root field is one statement with no per-row round trips.
 */
import { and, ident, join, type Sql, sql, trusted } from "@platform/core";
import { type GraphQLField, type GraphQLObjectType, getNamedType, isObjectType } from "graphql";
import {
  atArgument,
  distinctOnNotOrderBy,
  fieldNotFound,
  jsonPath,
  noSelectionSet,
  problemError,
  relationshipMissing,
  typeMismatch,
  unexpectedEnumValue,
  unexpectedField,
} from "../errors.js";
import type { TableModel } from "../model/types.js";
import { fieldInfo } from "../schema/field-info.js";
import { compileBoolExp, joinCondition, permissionFilter } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { type Collected, collectFields } from "./fields.js";
import { computedFieldJson } from "./functions.js";
import { atJsonPath } from "./json-path.js";
import { orderTerms } from "./order.js";
import { mapValue } from "./slot.js";
import { argumentValues } from "./values.js";

export type Path = ReadonlyArray<string | number>;

interface Parent {
  rel: { mapping: Array<[string, string]> };
  alias: string;
}

function objectTypeOf(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  const type = getNamedType(field.type);
  if (!isObjectType(type)) throw noSelectionSet(field.name);
  return type;
}

function subFields(ctx: CompileContext, collected: Collected, type: GraphQLObjectType): Collected[] {
  return collectFields(collected.selections, type.name, ctx.fragments, ctx.variables);
}

/** `(SELECT row_to_json(_x) FROM (SELECT e AS "key", ...) AS _x)`: keys in selection order. */
export function rowJson(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  fields: Collected[],
  type: GraphQLObjectType,
  path: Path,
): Sql {
  const columns: Sql[] = [];
  for (const f of fields) {
    const key = ident(f.responseKey);
    if (f.name === "__typename") {
      columns.push(sql`${type.name}::text AS ${key}`);
      continue;
    }
    const def = type.getFields()[f.name];
    const info = def ? fieldInfo(def.extensions) : undefined;
    if (!def || !info) throw fieldNotFound(f.name, `${type.name}`, jsonPath([...path, "selectionSet", f.responseKey]));
    const here = [...path, "selectionSet", f.responseKey];
    if (info.kind === "column")
      columns.push(sql`${atJsonPath(columnValue(ctx, table, alias, info.column), f, ctx.variables, here)} AS ${key}`);
    else if (info.kind === "object_rel" || info.kind === "array_rel" || info.kind === "array_rel_aggregate") {
      const rel = table.relationships.get(info.rel);
      if (!rel) throw relationshipMissing(info.rel);
      const target = ctx.table(rel.target);
      const parent = { rel, alias };
      const childType = objectTypeOf(def);
      const args = argumentValues(f.node.arguments, ctx.variables, def.args);
      const child = subFields(ctx, f, childType);
      if (info.kind === "object_rel") columns.push(sql`${objectJson(ctx, target, child, childType, parent, here)} AS ${key}`);
      else if (info.kind === "array_rel") columns.push(sql`${listJson(ctx, target, args, child, childType, parent, here)} AS ${key}`);
      else columns.push(sql`${aggregateJson(ctx, target, args, child, childType, parent, here)} AS ${key}`);
    } else if (info.kind === "computed_scalar" || info.kind === "computed_table") {
      columns.push(sql`${computedFieldJson(ctx, table, alias, f, def, info.computed, here)} AS ${key}`);
    } else throw unexpectedField(f.name, type.name);
  }
  const x = ctx.alias();
  return sql`(SELECT row_to_json(${ident(x)}) FROM (SELECT ${join(columns)}) AS ${ident(x)})`;
}

function objectJson(ctx: CompileContext, table: TableModel, fields: Collected[], type: GraphQLObjectType, parent: Parent, path: Path): Sql {
  const alias = ctx.alias();
  const where = and([joinCondition(parent.rel, parent.alias, alias), permissionFilter(ctx, table, alias)]);
  return sql`(SELECT ${rowJson(ctx, table, alias, fields, type, path)} FROM ${ident(table.schema, table.name)} AS ${ident(alias)} WHERE ${where} LIMIT 1)`;
}

interface Source {
  alias: string;
  /** `FROM (SELECT ...) AS alias`, filtered, ordered and paged. */
  from: Sql;
  /** `ORDER BY` of json_agg over the sub-select's order columns. */
  aggOrder: Sql;
}

/** The filtered, ordered, paged rows of a table as a sub-select, shared by lists and aggregates. */
function rowSource(
  ctx: CompileContext,
  table: TableModel,
  args: Record<string, unknown>,
  parent: Parent | null,
  path: Path,
  /** Hasura applies a select permission's row limit to row lists, not to aggregates. */
  permissionLimit = true,
  /** What the rows come from: the table, or a function call returning its rows. */
  relation: Sql = sql`${ident(table.schema, table.name)}`,
): Source {
  const access = ctx.access(table);
  const alias = ctx.alias();
  const argsPath = jsonPath([...path, "args"]);
  const where = and([
    parent ? joinCondition(parent.rel, parent.alias, alias) : sql``,
    permissionFilter(ctx, table, alias),
    atArgument(jsonPath([...path, "args", "where"]), () => compileBoolExp(ctx, table, alias, args.where, "graphql")),
  ]);
  const terms = atArgument(jsonPath([...path, "args", "order_by"]), () => orderTerms(ctx, table, alias, args.order_by));
  const distinct = ((args.distinct_on as string[] | undefined) ?? []).map((field) => {
    const column = table.columnByField.get(field);
    if (!column) throw unexpectedEnumValue(field, `${table.typeName}_select_column`, argsPath);
    return column.name;
  });
  if (distinct.length > 0 && terms.length > 0) {
    const prefix = terms.slice(0, distinct.length).map((t) => t.column);
    if (prefix.length < distinct.length || !distinct.every((c) => prefix.includes(c))) {
      throw distinctOnNotOrderBy(argsPath);
    }
  }
  const [limitArg, offsetArg] = (["limit", "offset"] as const).map((name) => nonNegative(args[name], [...path, "args", name]));
  const permissionRows = permissionLimit ? access.limit : null;
  const limit =
    limitArg !== null && permissionRows !== null
      ? sql` LIMIT least(${limitArg}::int, ${permissionRows}::int)`
      : limitArg !== null
        ? sql` LIMIT ${limitArg}`
        : permissionRows !== null
          ? sql` LIMIT ${permissionRows}`
          : sql``;
  const offset = offsetArg !== null ? sql` OFFSET ${offsetArg}` : sql``;
  const orderColumns = terms.map((t, i) => sql`, ${t.expr} AS ${ident(`__o${i}`)}`);
  const distinctOn = distinct.length > 0 ? sql`DISTINCT ON (${join(distinct.map((c) => sql`${ident(alias, c)}`))}) ` : sql``;
  const orderBy = terms.length > 0 ? sql` ORDER BY ${join(terms.map((t) => sql`${t.expr} ${t.direction}`))}` : sql``;
  const inner = sql`SELECT ${distinctOn}${ident(alias)}.*${join(orderColumns, sql``)} FROM ${relation} AS ${ident(alias)} WHERE ${where}${orderBy}${limit}${offset}`;
  const aggOrder = terms.length > 0 ? sql` ORDER BY ${join(terms.map((t, i) => sql`${ident(alias, `__o${i}`)} ${t.direction}`))}` : sql``;
  return { alias, from: sql`FROM (${inner}) AS ${ident(alias)}`, aggOrder };
}

/** A limit or offset (a number or a plan slot), refused when negative as Hasura's Int parser does; null when absent. */
function nonNegative(value: unknown, path: Path): unknown {
  if (value === null || value === undefined) return null;
  return mapValue(value, (v) => {
    if (typeof v === "number" && v < 0)
      throw problemError(typeMismatch("Int", "a non-negative 32-bit integer", "an integer"), jsonPath(path));
    return v;
  });
}

export function listJson(
  ctx: CompileContext,
  table: TableModel,
  args: Record<string, unknown>,
  fields: Collected[],
  type: GraphQLObjectType,
  parent: Parent | null,
  path: Path,
  relation?: Sql,
): Sql {
  const source = rowSource(ctx, table, args, parent, path, true, relation);
  const row = rowJson(ctx, table, source.alias, fields, type, path);
  return sql`(SELECT coalesce(json_agg(${row}${source.aggOrder}), '[]'::json) ${source.from})`;
}

export function byPkJson(
  ctx: CompileContext,
  table: TableModel,
  args: Record<string, unknown>,
  fields: Collected[],
  type: GraphQLObjectType,
  path: Path,
): Sql {
  const alias = ctx.alias();
  const keys = (table.primaryKey ?? []).map((name) => {
    const column = table.columnByName.get(name);
    return sql`${ident(alias, name)} = ${args[column?.field ?? name]}`;
  });
  const where = and([...keys, permissionFilter(ctx, table, alias)]);
  return sql`(SELECT ${rowJson(ctx, table, alias, fields, type, path)} FROM ${ident(table.schema, table.name)} AS ${ident(alias)} WHERE ${where} LIMIT 1)`;
}

export function aggregateJson(
  ctx: CompileContext,
  table: TableModel,
  args: Record<string, unknown>,
  fields: Collected[],
  type: GraphQLObjectType,
  parent: Parent | null,
  path: Path,
  relation?: Sql,
): Sql {
  const source = rowSource(ctx, table, args, parent, path, false, relation);
  const pairs: Sql[] = [];
  for (const f of fields) {
    const here = [...path, "selectionSet", f.responseKey];
    if (f.name === "__typename") pairs.push(sql`${f.responseKey}::text, ${type.name}::text`);
    else if (f.name === "nodes") {
      const def = type.getFields().nodes as GraphQLField<unknown, unknown>;
      const nodeType = objectTypeOf(def);
      if (ctx.access(table).limit !== null) {
        // The permission's row limit holds for the nodes (the aggregate counts every row): they get their own source.
        pairs.push(
          sql`${f.responseKey}::text, ${listJson(ctx, table, args, subFields(ctx, f, nodeType), nodeType, parent, here, relation)}`,
        );
        continue;
      }
      const row = rowJson(ctx, table, source.alias, subFields(ctx, f, nodeType), nodeType, here);
      pairs.push(sql`${f.responseKey}::text, coalesce(json_agg(${row}${source.aggOrder}), '[]'::json)`);
    } else if (f.name === "aggregate") {
      const def = type.getFields().aggregate as GraphQLField<unknown, unknown>;
      const aggType = objectTypeOf(def);
      pairs.push(sql`${f.responseKey}::text, ${aggregateFields(ctx, table, source.alias, subFields(ctx, f, aggType), aggType)}`);
    }
  }
  // GROUP BY (): one row even when no aggregate function is selected (only __typename, or
  // every field skipped), as an aggregate over the rows always is.
  return sql`(SELECT json_build_object(${join(pairs)}) ${source.from} GROUP BY ())`;
}

/** `count(*)`, or over the given columns (GraphQL field names), `DISTINCT` when asked. */
export function countExpression(table: TableModel, alias: string, fields: unknown, distinct: boolean): Sql {
  const columns = ((fields as string[] | null | undefined) ?? []).map(
    (field) => sql`${ident(alias, table.columnByField.get(field)?.name ?? field)}`,
  );
  if (columns.length === 0) return sql`count(*)`;
  const keyword = distinct ? sql`DISTINCT ` : sql``;
  return columns.length === 1 ? sql`count(${keyword}${columns[0] as Sql})` : sql`count(${keyword}(${join(columns)}))`;
}

function aggregateFields(ctx: CompileContext, table: TableModel, alias: string, fields: Collected[], type: GraphQLObjectType): Sql {
  const pairs: Sql[] = [];
  for (const f of fields) {
    if (f.name === "__typename") {
      pairs.push(sql`${f.responseKey}::text, ${type.name}::text`);
      continue;
    }
    if (f.name === "count") {
      const args = argumentValues(f.node.arguments, ctx.variables, type.getFields().count?.args);
      pairs.push(sql`${f.responseKey}::text, ${countExpression(table, alias, args.columns, args.distinct === true)}`);
      continue;
    }
    const def = type.getFields()[f.name];
    const info = def ? fieldInfo(def.extensions) : undefined;
    if (!def || info?.kind !== "aggregate_op") continue;
    const opType = objectTypeOf(def);
    const inner: Sql[] = [];
    for (const c of subFields(ctx, f, opType)) {
      if (c.name === "__typename") {
        inner.push(sql`${c.responseKey}::text, ${opType.name}::text`);
        continue;
      }
      const colInfo = fieldInfo(opType.getFields()[c.name]?.extensions);
      if (colInfo?.kind === "column")
        inner.push(sql`${c.responseKey}::text, ${aggregateValue(ctx, table, alias, info.op, colInfo.column)}`);
    }
    pairs.push(sql`${f.responseKey}::text, json_build_object(${join(inner)})`);
  }
  return sql`json_build_object(${join(pairs)})`;
}

/** Hasura's "big numbers" (isBigNum): JSON strings under HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES (columns, aggregates, computed fields). */
export const BIG_NUMERIC: ReadonlySet<string> = new Set(["int8", "numeric", "float8", "money"]);

/** A column's value for the JSON row; big numbers become strings when so configured. */
function columnValue(ctx: CompileContext, table: TableModel, alias: string, column: string): Sql {
  const type = table.columnByName.get(column)?.pgType ?? "";
  return ctx.options.stringifyNumeric && BIG_NUMERIC.has(type) ? sql`${ident(alias, column)}::text` : sql`${ident(alias, column)}`;
}

/** Aggregates Hasura types as Float: PostgreSQL's numeric results are cast so they print as JSON floats. */
const FLOAT_AGGREGATES = new Set(["avg", "stddev", "stddev_pop", "stddev_samp", "var_pop", "var_samp", "variance"]);

/**
 * An aggregate over a column: statistical ones as float8; sum/max/min keep the column's type.
 * Over a big-number column, when so configured, every one is PostgreSQL's text of the result
 * (Hasura stringifies by the column's type: avg of a numeric prints "5.5500000000000000").
 */
function aggregateValue(ctx: CompileContext, table: TableModel, alias: string, op: string, column: string): Sql {
  const value = sql`${trusted(op)}(${ident(alias, column)})`;
  const type = table.columnByName.get(column)?.pgType ?? "";
  if (ctx.options.stringifyNumeric && BIG_NUMERIC.has(type)) return sql`${value}::text`;
  return FLOAT_AGGREGATES.has(op) ? sql`${value}::float8` : value;
}

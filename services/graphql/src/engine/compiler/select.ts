/**
 * Selections to one SQL expression that builds the field's JSON inside PostgreSQL
 * (as Hasura's own SQL does): rows as row_to_json of a sub-select in selection order, lists
 * as json_agg, object relationships and array relationships as correlated sub-selects, so
 * a whole root field is one statement with no per-row round trips.
 */
import { and, ident, join, type Sql, sql } from "@platform/core";
import { atArgument, distinctOnNotOrderBy, jsonPath, problemError, typeMismatch, unexpectedEnumValue } from "../errors/index.js";
import type { TableModel } from "../model/types.js";
import type { AggregateFunctionField, AggregateNode, Path, QueryField, RemoteJoinNode, RowField, RowsNode } from "../plan/types.js";
import { aggregateCall } from "./aggregate-call.js";
import { compileBoolExp, joinCondition, permissionFilter } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { computedFieldJson, computedScalarValue } from "./functions.js";
import { atJsonPath } from "./json-path.js";
import { orderTerms } from "./order.js";
import { mapValue } from "./slot.js";

export interface Parent {
  rel: { mapping: Array<[string, string]> };
  alias: string;
}

/** `(SELECT row_to_json(_x) FROM (SELECT e AS "key", ...) AS _x)`: keys in selection order. */
export function rowJson(ctx: CompileContext, table: TableModel, alias: string, fields: RowField[]): Sql {
  const columns = fields.map((f) => sql`${rowFieldValue(ctx, table, alias, f)} AS ${ident(f.key)}`);
  const x = ctx.alias();
  return sql`(SELECT row_to_json(${ident(x)}) FROM (SELECT ${join(columns)}) AS ${ident(x)})`;
}

function rowFieldValue(ctx: CompileContext, table: TableModel, alias: string, f: RowField): Sql {
  switch (f.kind) {
    case "typename":
      return sql`${f.typeName}::text`;
    case "column":
      return atJsonPath(columnValue(ctx, table, alias, f.column), f.jsonPath, f.path);
    case "object_rel":
      return objectJson(ctx, f.target, f.fields, { rel: f.rel, alias });
    case "array_rel":
      return listJson(ctx, f.rows, { rel: f.rel, alias });
    case "array_rel_aggregate":
      return aggregateJson(ctx, f.aggregate, { rel: f.rel, alias });
    case "remote_rel":
      // The row's join fields; the remote's answer takes their place (executors/remote-joins.ts).
      return sql`json_build_object(${join(f.rel.lhs.map((c) => sql`${c}::text, ${remoteJoinValue(ctx, table, alias, f, c)}`))})`;
    default:
      return computedFieldJson(ctx, table, alias, f);
  }
}

/** A remote relationship's join field of the row at `alias`: a column, or a computed field's value. */
function remoteJoinValue(ctx: CompileContext, table: TableModel, alias: string, node: RemoteJoinNode, field: string): Sql {
  const computed = node.rel.computedLhs.get(field);
  return computed ? computedScalarValue(ctx, table, alias, computed, node.path) : sql`${ident(alias, field)}`;
}

export function objectJson(ctx: CompileContext, table: TableModel, fields: RowField[], parent: Parent): Sql {
  const alias = ctx.alias();
  const where = and([joinCondition(parent.rel, parent.alias, alias), permissionFilter(ctx, table, alias)]);
  return sql`(SELECT ${rowJson(ctx, table, alias, fields)} FROM ${ctx.relation(table)} AS ${ident(alias)} WHERE ${where} LIMIT 1)`;
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
  relation: Sql = ctx.relation(table),
  /** The limit keeps the rows that tie with the last one (`FETCH FIRST n ROWS WITH TIES`: a stream's batch). */
  ties = false,
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
  const rows =
    limitArg !== null && permissionRows !== null
      ? sql`least(${limitArg}::int, ${permissionRows}::int)`
      : limitArg !== null
        ? sql`${limitArg}`
        : permissionRows !== null
          ? sql`${permissionRows}`
          : null;
  const offset = offsetArg !== null ? sql` OFFSET ${offsetArg}` : sql``;
  const limit = rows === null ? sql`` : ties ? sql`${offset} FETCH FIRST (${rows}) ROWS WITH TIES` : sql` LIMIT ${rows}`;
  const orderColumns = terms.map((t, i) => sql`, ${t.expr} AS ${ident(`__o${i}`)}`);
  const distinctOn = distinct.length > 0 ? sql`DISTINCT ON (${join(distinct.map((c) => sql`${ident(alias, c)}`))}) ` : sql``;
  const orderBy = terms.length > 0 ? sql` ORDER BY ${join(terms.map((t) => sql`${t.expr} ${t.direction}`))}` : sql``;
  const inner = sql`SELECT ${distinctOn}${ident(alias)}.*${join(orderColumns, sql``)} FROM ${relation} AS ${ident(alias)} WHERE ${where}${orderBy}${limit}${ties ? sql`` : offset}`;
  const aggOrder = terms.length > 0 ? sql` ORDER BY ${join(terms.map((t, i) => sql`${ident(alias, `__o${i}`)} ${t.direction}`))}` : sql``;
  return { alias, from: sql`FROM (${inner}) AS ${ident(alias)}`, aggOrder };
}

/**
 * A stream's batch as a sub-select of two columns: `result`, the rows' JSON array in cursor
 * order (the rows that tie with the batch's last one included), and `cursor`, the last cursor
 * value as text (null when the batch is empty).
 */
export function streamBatch(ctx: CompileContext, node: RowsNode, cursorColumn: string, descending: boolean): Sql {
  const source = rowSource(ctx, node.table, node.args, null, node.path, true, undefined, true);
  const row = rowJson(ctx, node.table, source.alias, node.fields);
  const last = descending ? sql`min` : sql`max`;
  return sql`(SELECT coalesce(json_agg(${row}${source.aggOrder}), '[]'::json) AS "result", (${last}(${ident(source.alias, cursorColumn)}))::text AS "cursor" ${source.from})`;
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

/** A list of rows as a JSON array (`relation`: what the rows come from when not the table itself, such as a function call). */
export function listJson(ctx: CompileContext, node: RowsNode, parent: Parent | null, relation?: Sql): Sql {
  const source = rowSource(ctx, node.table, node.args, parent, node.path, true, relation);
  const row = rowJson(ctx, node.table, source.alias, node.fields);
  return sql`(SELECT coalesce(json_agg(${row}${source.aggOrder}), '[]'::json) ${source.from})`;
}

export function byPkJson(ctx: CompileContext, node: Extract<QueryField, { kind: "select_by_pk" }>): Sql {
  const { table, pk } = node;
  const alias = ctx.alias();
  const keys = (table.primaryKey ?? []).map((name) => {
    const column = table.columnByName.get(name);
    return sql`${ident(alias, name)} = ${pk[column?.field ?? name]}`;
  });
  const where = and([...keys, permissionFilter(ctx, table, alias)]);
  return sql`(SELECT ${rowJson(ctx, table, alias, node.fields)} FROM ${ctx.relation(table)} AS ${ident(alias)} WHERE ${where} LIMIT 1)`;
}

export function aggregateJson(ctx: CompileContext, node: AggregateNode, parent: Parent | null, relation?: Sql): Sql {
  const { table, args } = node;
  const source = rowSource(ctx, table, args, parent, node.path, false, relation);
  const pairs: Sql[] = [];
  for (const f of node.fields) {
    if (f.kind === "typename") pairs.push(sql`${f.key}::text, ${f.typeName}::text`);
    else if (f.kind === "nodes") {
      if (ctx.access(table).limit !== null) {
        // The permission's row limit holds for the nodes (the aggregate counts every row): they get their own source.
        pairs.push(sql`${f.key}::text, ${listJson(ctx, { table, args, fields: f.fields, path: f.path }, parent, relation)}`);
        continue;
      }
      const row = rowJson(ctx, table, source.alias, f.fields);
      pairs.push(sql`${f.key}::text, coalesce(json_agg(${row}${source.aggOrder}), '[]'::json)`);
    } else pairs.push(sql`${f.key}::text, ${aggregateFields(ctx, table, source.alias, f.fields)}`);
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

function aggregateFields(ctx: CompileContext, table: TableModel, alias: string, fields: AggregateFunctionField[]): Sql {
  const pairs = fields.map((f) => {
    if (f.kind === "typename") return sql`${f.key}::text, ${f.typeName}::text`;
    if (f.kind === "count") return sql`${f.key}::text, ${countExpression(table, alias, f.columns, f.distinct)}`;
    const inner = f.columns.map((c) =>
      c.kind === "typename"
        ? sql`${c.key}::text, ${c.typeName}::text`
        : sql`${c.key}::text, ${aggregateValue(ctx, table, alias, f.op, c.column)}`,
    );
    return sql`${f.key}::text, json_build_object(${join(inner)})`;
  });
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
  const type = table.columnByName.get(column)?.pgType ?? "";
  const value = aggregateCall(op, sql`${ident(alias, column)}`, type);
  if (ctx.options.stringifyNumeric && BIG_NUMERIC.has(type)) return sql`${value}::text`;
  return FLOAT_AGGREGATES.has(op) ? sql`${value}::float8` : value;
}

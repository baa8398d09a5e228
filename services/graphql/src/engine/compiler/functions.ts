/**
 * Computed fields and tracked functions in SQL. Every call is `schema.fn(...)` inside the root
 * field's one statement: a computed field gets the row as `ROW(alias.c1, ...)::schema.table`
 * (whatever relation the alias reads: a table, a sub-select or a function), the session
 * argument gets the session variables as JSON, and `args` values are bound parameters cast to
 * the argument's type. Arguments follow Hasura: positional while present, then by name; an
 * omitted argument without a default is an error.
 */
import { and, ident, join, type Sql, sql } from "@platform/core";
import { jsonPath, positionalArgumentOmitted, requiredArgumentOmitted } from "../errors/index.js";
import type { ColumnModel, ComputedFieldModel, FunctionCallModel, TableModel } from "../model/types.js";
import type { MutationField, Path, QueryField, RowField } from "../plan/types.js";
import type { Session } from "../request/session.js";
import { compileBoolExp, type ExpSource, jsonAware, permissionFilter } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { aggregateJson, BIG_NUMERIC, listJson } from "./select.js";
import { Slot } from "./slot.js";

/** The row of `table` read through `alias`, as a value of the table's row type. */
export function rowValue(table: TableModel, alias: string): Sql {
  return sql`ROW(${join(table.columns.map((c) => sql`${ident(alias, c.name)}`))})::${ident(table.schema, table.name)}`;
}

function sessionJson(session: Session): string {
  return JSON.stringify({ ...session.variables, "x-hasura-role": session.role });
}

/** The session variables as JSON (a slot read when a cached plan runs). */
function sessionArgument(ctx: CompileContext): unknown {
  return ctx.planning ? new Slot(({ session }) => sessionJson(session)) : sessionJson(ctx.session);
}

/** Where Hasura reports a function's arguments: the field's `args.args`. */
function argsPath(path: Path): string {
  return jsonPath([...path, "args", "args"]);
}

/** `schema.fn(a, b, name => c)`; `row` is the table row of a computed field. */
export function functionCall(ctx: CompileContext, call: FunctionCallModel, row: Sql | null, input: unknown, path: Path): Sql {
  const given = (input ?? {}) as Record<string, unknown>;
  const positional: Sql[] = [];
  const named: Sql[] = [];
  let gap = false;
  for (const arg of call.args) {
    let value: Sql | null;
    if (arg.kind === "table") value = row ?? sql`NULL`;
    else if (arg.kind === "session") value = sql`${sessionArgument(ctx)}::${ident(arg.typeSchema, arg.pgType)}`;
    else {
      const present = given[arg.name] !== undefined;
      if (!present && !arg.hasDefault) throw requiredArgumentOmitted(argsPath(path));
      value = present ? sql`${jsonAware(arg.pgType, given[arg.name])}::${ident(arg.typeSchema, arg.pgType)}` : null;
    }
    if (value === null) {
      gap = true;
      continue;
    }
    if (!gap) {
      positional.push(value);
      continue;
    }
    const sqlName = arg.sqlName;
    if (sqlName === null) throw positionalArgumentOmitted(argsPath(path));
    named.push(sql`${ident(sqlName)} => ${value}`);
  }
  ctx.callsFunction(call.schema, call.name);
  return sql`${ident(call.schema, call.name)}(${join([...positional, ...named])})`;
}

/** A computed field in a row's JSON: the scalar value, or the list of rows the function returns. */
export function computedFieldJson(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  field: Extract<RowField, { kind: "computed_scalar" | "computed_table" }>,
): Sql {
  const { computed } = field;
  if (field.kind === "computed_table") {
    const call = functionCall(ctx, computed.call, rowValue(table, alias), field.rows.args.args, field.rows.path);
    return listJson(ctx, field.rows, null, call);
  }
  const call = functionCall(ctx, computed.call, rowValue(table, alias), field.args.args, field.path);
  const pgType = computed.returns.kind === "scalar" ? computed.returns.pgType : "";
  return ctx.options.stringifyNumeric && BIG_NUMERIC.has(pgType) ? sql`(${call})::text` : call;
}

/** An argument-free scalar computed field's value for the row at `alias` (a remote relationship's join field). */
export function computedScalarValue(ctx: CompileContext, table: TableModel, alias: string, computed: ComputedFieldModel, path: Path): Sql {
  return functionCall(ctx, computed.call, rowValue(table, alias), {}, path);
}

/** A table shaped like one column: lets a scalar computed field reuse the column operators. */
function oneColumnTable(table: TableModel, column: ColumnModel): TableModel {
  const only = new Map([[column.name, column]]);
  return {
    ...table,
    columns: [column],
    columnByName: only,
    columnByField: only,
    relationships: new Map(),
    computedFields: new Map(),
  };
}

/**
 * A computed field in a boolean expression (only argument-free ones are allowed there): a scalar
 * compared like a column, a table one true when some returned row matches.
 */
export function computedFieldExp(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  cf: ComputedFieldModel,
  value: unknown,
  source: ExpSource,
  root?: Parameters<typeof compileBoolExp>[5],
): Sql {
  const call = functionCall(ctx, cf.call, rowValue(table, alias), {}, []);
  const inner = ctx.alias();
  if (cf.returns.kind === "scalar") {
    const column: ColumnModel = {
      name: cf.name,
      field: cf.name,
      pgType: cf.returns.pgType,
      scalar: cf.returns.scalar,
      nullable: true,
      generated: false,
      enumTable: null,
      comment: null,
    };
    const condition = compileBoolExp(ctx, oneColumnTable(table, column), inner, { [cf.name]: value }, source, root);
    return sql`(SELECT ${condition} FROM (SELECT ${call} AS ${ident(cf.name)}) AS ${ident(inner)})`;
  }
  const target = ctx.table(cf.returns.target);
  // As with relationships: permission rules see every row, user filters only what the role may read.
  const permission = source === "permission" ? sql`true` : permissionFilter(ctx, target, inner);
  const nested = compileBoolExp(ctx, target, inner, value, source, root);
  return sql`EXISTS (SELECT 1 FROM ${call} AS ${ident(inner)} WHERE ${and([permission, nested])})`;
}

/** `fn(args)` and `fn_aggregate(args)` root fields (and functions tracked as mutations): the function is the row source of a select. */
export function functionRootJson(
  ctx: CompileContext,
  node: Extract<QueryField | MutationField, { kind: "function" | "function_aggregate" }>,
): Sql {
  if (node.kind === "function_aggregate") {
    return aggregateJson(ctx, node.aggregate, null, functionCall(ctx, node.fn.call, null, node.call, node.aggregate.path));
  }
  const list = listJson(ctx, node.rows, null, functionCall(ctx, node.fn.call, null, node.call, node.rows.path));
  return node.fn.returnsSet ? list : sql`(${list}) -> 0`;
}

/**
 * Planning what a query reads: the fields of a table's rows (columns, relationships, computed
 * fields), lists of rows and aggregates, each resolved against the table model it is asked on.
 */
import type { GraphQLObjectType } from "graphql";
import { computedFieldMissing, fieldNotFound, jsonPath, relationshipMissing, unexpectedField } from "../errors/index.js";
import type { TableModel } from "../model/types.js";
import { definitionOf, objectTypeOf, type PlanContext, type SchemaField } from "./context.js";
import type { Collected } from "./fields.js";
import { planRemoteJoin } from "./remote.js";
import type { AggregateField, AggregateFunctionField, AggregateNode, Args, Path, RowField, RowsNode } from "./types.js";

const at = (path: Path, f: Collected): Path => [...path, "selectionSet", f.responseKey];

/** The fields of one row of `table`, asked on its object type `type`. */
export function planRowFields(ctx: PlanContext, table: TableModel, fields: Collected[], type: GraphQLObjectType, path: Path): RowField[] {
  return fields.map((f): RowField => {
    const key = f.responseKey;
    if (f.name === "__typename") return { kind: "typename", key, typeName: type.name };
    const here = at(path, f);
    const found = definitionOf(type, f.name);
    if (!found) throw fieldNotFound(f.name, type.name, jsonPath(here));
    const { def, info } = found;
    switch (info.kind) {
      case "column":
        return { kind: "column", key, column: info.column, jsonPath: ctx.args(f, def).path, path: here };
      case "object_rel":
      case "array_rel":
      case "array_rel_aggregate": {
        const rel = table.relationships.get(info.rel);
        if (!rel) throw relationshipMissing(info.rel);
        return planRelationship(ctx, info.kind, rel, f, def, here);
      }
      case "computed_scalar":
      case "computed_table": {
        const computed = table.computedFields.get(info.computed);
        if (!computed) throw computedFieldMissing(info.computed);
        const args = ctx.args(f, def);
        if (computed.returns.kind === "scalar") return { kind: "computed_scalar", key, computed, args, path: here };
        const target = ctx.table(computed.returns.target);
        const childType = objectTypeOf(def);
        return { kind: "computed_table", key, computed, rows: planRows(ctx, target, args, ctx.subFields(f, childType), childType, here) };
      }
      case "remote_rel": {
        const rel = ctx.model.remoteRelationships?.get(table.key)?.find((r) => r.name === info.rel);
        if (!rel) throw relationshipMissing(info.rel);
        return planRemoteJoin(ctx, rel, f, here);
      }
      default:
        throw unexpectedField(f.name, type.name);
    }
  });
}

/** A relationship to a table's rows (a table's own, or an action output's): one row, a list, or their aggregate. */
export function planRelationship<R extends { target: string }>(
  ctx: PlanContext,
  kind: "object_rel" | "array_rel" | "array_rel_aggregate",
  rel: R,
  f: Collected,
  def: SchemaField,
  path: Path,
):
  | { kind: "object_rel"; key: string; rel: R; target: TableModel; fields: RowField[]; path: Path }
  | { kind: "array_rel"; key: string; rel: R; rows: RowsNode }
  | { kind: "array_rel_aggregate"; key: string; rel: R; aggregate: AggregateNode } {
  const key = f.responseKey;
  const target = ctx.table(rel.target);
  const childType = objectTypeOf(def);
  const child = ctx.subFields(f, childType);
  if (kind === "object_rel") return { kind, key, rel, target, fields: planRowFields(ctx, target, child, childType, path), path };
  const args = ctx.args(f, def);
  if (kind === "array_rel") return { kind, key, rel, rows: planRows(ctx, target, args, child, childType, path) };
  return { kind, key, rel, aggregate: planAggregate(ctx, target, args, child, childType, path) };
}

/** A list of rows: the select arguments and the fields of each row. */
export function planRows(
  ctx: PlanContext,
  table: TableModel,
  args: Args,
  fields: Collected[],
  type: GraphQLObjectType,
  path: Path,
): RowsNode {
  return { table, args, fields: planRowFields(ctx, table, fields, type, path), path };
}

/** An aggregate object over rows selected by `args`: `aggregate { count, sum {...} ... }` and `nodes`. */
export function planAggregate(
  ctx: PlanContext,
  table: TableModel,
  args: Args,
  fields: Collected[],
  type: GraphQLObjectType,
  path: Path,
): AggregateNode {
  const planned: AggregateField[] = [];
  for (const f of fields) {
    const key = f.responseKey;
    if (f.name === "__typename") planned.push({ kind: "typename", key, typeName: type.name });
    else if (f.name === "nodes" || f.name === "aggregate") {
      const def = type.getFields()[f.name] as SchemaField;
      const childType = objectTypeOf(def);
      const child = ctx.subFields(f, childType);
      if (f.name === "nodes")
        planned.push({ kind: "nodes", key, fields: planRowFields(ctx, table, child, childType, at(path, f)), path: at(path, f) });
      else planned.push({ kind: "aggregate", key, typeName: childType.name, fields: planAggregateFunctions(ctx, child, childType) });
    }
  }
  return { table, args, typeName: type.name, fields: planned, path };
}

/** The fields of `<table>_aggregate_fields`: count and the aggregate functions with their columns. */
function planAggregateFunctions(ctx: PlanContext, fields: Collected[], type: GraphQLObjectType): AggregateFunctionField[] {
  const planned: AggregateFunctionField[] = [];
  for (const f of fields) {
    const key = f.responseKey;
    if (f.name === "__typename") {
      planned.push({ kind: "typename", key, typeName: type.name });
      continue;
    }
    if (f.name === "count") {
      const args = ctx.args(f, type.getFields().count);
      planned.push({ kind: "count", key, columns: args.columns, distinct: args.distinct === true });
      continue;
    }
    const found = definitionOf(type, f.name);
    if (found?.info.kind !== "aggregate_op") continue;
    const opType = objectTypeOf(found.def);
    const columns: Array<{ kind: "typename"; key: string; typeName: string } | { kind: "column"; key: string; column: string }> = [];
    for (const c of ctx.subFields(f, opType)) {
      if (c.name === "__typename") columns.push({ kind: "typename", key: c.responseKey, typeName: opType.name });
      else {
        const column = definitionOf(opType, c.name);
        if (column?.info.kind === "column") columns.push({ kind: "column", key: c.responseKey, column: column.info.column });
      }
    }
    planned.push({ kind: "function", key, op: found.info.op, typeName: opType.name, columns });
  }
  return planned;
}

/**
 * Computed fields and tracked functions in one role's schema (Hasura's rules): scalar computed
 * fields are nullable fields of the table type, table computed fields take the select arguments
 * of the table they return, and both take `args: <cf>_<table>_args` when the function has inputs
 * of its own. Argument-free ones also appear in `T_bool_exp` and `T_order_by`. A tracked
 * function is a root field `<fn>(args: <fn>_args, ...select args)` with `<fn>_aggregate` when
 * the role may aggregate its table; VOLATILE ones go to mutation_root.
 */
import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLObjectType,
} from "graphql";
import { argumentFree, functionVisible, visibleComputedFields } from "../model/function-access.js";
import { label } from "../model/functions.js";
import type { ColumnModel, FunctionCallModel, Model, TableModel } from "../model/types.js";
import type { RoleSchemaBuilder } from "./build.js";
import { sortFields } from "./comparison.js";
import type { FieldInfo } from "./field-info.js";
import { orderByEnum } from "./scalars.js";

const info = (hasura: FieldInfo) => ({ hasura });

/** A column-like view of a scalar type, for the builder's scalar and comparison types. */
export function pseudoColumn(name: string, pgType: string, scalar: string): ColumnModel {
  return { name, field: name, pgType, scalar, nullable: true, generated: false, enumTable: null, comment: null };
}

function target(model: Model, key: string): TableModel {
  return model.tables.get(key) as TableModel;
}

/** `{args: <name>_args}` (required when an argument has no default), or nothing when the function takes no inputs. */
export function functionArgs(b: RoleSchemaBuilder, call: FunctionCallModel): GraphQLFieldConfigArgumentMap {
  const inputs = call.args.flatMap((a) => (a.kind === "input" ? [a] : []));
  if (inputs.length === 0) return {};
  const type = b.named(
    call.argsTypeName,
    () =>
      new GraphQLInputObjectType({
        name: call.argsTypeName,
        fields: () =>
          Object.fromEntries(inputs.map((a) => [a.name, { type: b.scalar(pseudoColumn(a.name, a.pgType, a.scalar)) as GraphQLInputType }])),
      }),
  );
  const required = inputs.some((a) => !a.hasDefault);
  return { args: { type: required ? new GraphQLNonNull(type) : type, description: call.argsDescription } };
}

export function computedObjectFields(b: RoleSchemaBuilder, table: TableModel): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const cf of visibleComputedFields(b.model, table, b.role)) {
    const description = cf.comment ? { description: cf.comment } : {};
    if (cf.returns.kind === "scalar") {
      fields[cf.name] = {
        type: b.scalar(pseudoColumn(cf.name, cf.returns.pgType, cf.returns.scalar)),
        ...description,
        args: functionArgs(b, cf.call),
        extensions: info({ kind: "computed_scalar", computed: cf.name }),
      };
      continue;
    }
    const returned = target(b.model, cf.returns.target);
    fields[cf.name] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(b.objectType(returned)))),
      ...description,
      args: { ...functionArgs(b, cf.call), ...b.selectArgs(returned) },
      extensions: info({ kind: "computed_table", computed: cf.name }),
    };
  }
  return fields;
}

export function computedBoolExpFields(b: RoleSchemaBuilder, table: TableModel): Record<string, { type: GraphQLInputType }> {
  const fields: Record<string, { type: GraphQLInputType }> = {};
  for (const cf of visibleComputedFields(b.model, table, b.role).filter(argumentFree)) {
    fields[cf.name] = {
      type:
        cf.returns.kind === "scalar"
          ? b.comparison(pseudoColumn(cf.name, cf.returns.pgType, cf.returns.scalar))
          : b.boolExpType(target(b.model, cf.returns.target)),
    };
  }
  return fields;
}

export function computedOrderByFields(b: RoleSchemaBuilder, table: TableModel): Record<string, { type: GraphQLInputType }> {
  const fields: Record<string, { type: GraphQLInputType }> = {};
  for (const cf of visibleComputedFields(b.model, table, b.role).filter(argumentFree)) {
    if (cf.returns.kind === "scalar") fields[cf.name] = { type: orderByEnum };
    else fields[`${cf.name}_aggregate`] = { type: b.aggregateOrderByType(target(b.model, cf.returns.target)) };
  }
  return fields;
}

/** Tracked functions of one root (query and subscription, or mutation) visible to the role. */
export function functionRootFields(b: RoleSchemaBuilder, root: "query" | "mutation"): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const fn of b.model.functions.values()) {
    if (fn.exposedAs !== root || !functionVisible(b.model, fn, b.role)) continue;
    const table = target(b.model, fn.returnTable);
    const object: GraphQLObjectType = b.objectType(table);
    const args = { ...functionArgs(b, fn.call), ...b.selectArgs(table) };
    fields[fn.fieldName] = {
      type: fn.returnsSet ? new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(object))) : object,
      description: fn.description,
      args,
      extensions: info({ kind: "function", table: table.key, fn: fn.key }),
    };
    if (root === "query" && b.access(table).aggregations) {
      fields[fn.aggregateFieldName] = {
        type: new GraphQLNonNull(b.aggregateType(table)),
        description: `execute function ${label(fn.call)} and query aggregates on result of table type ${label(table)}`,
        args,
        extensions: info({ kind: "function_aggregate", table: table.key, fn: fn.key }),
      };
    }
  }
  return sortFields(fields);
}

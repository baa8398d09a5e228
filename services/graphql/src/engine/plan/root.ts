/** Planning the root fields of query_root and mutation_root. */
import type { GraphQLObjectType } from "graphql";
import { actionMissing, fieldNotFound, jsonPath, streamCursorInvalid, subscriptionOnlyField } from "../errors/index.js";
import type { FunctionModel, TableModel } from "../model/types.js";
import type { MutationKind } from "../schema/field-info.js";
import { planAction, planAsyncQuery } from "./action.js";
import { definitionOf, objectTypeOf, type PlanContext } from "./context.js";
import type { Collected } from "./fields.js";
import { planTableMutation } from "./mutation.js";
import { planRemoteField } from "./remote.js";
import { planAggregate, planRowFields, planRows } from "./select.js";
import type { MutationField, Path, QueryField, StreamCursor } from "./types.js";
import { asList } from "./values.js";

function rootDefinition(ctx: PlanContext, root: GraphQLObjectType, field: Collected, path: Path) {
  const found = definitionOf(root, field.name);
  if (!found || !("table" in found.info)) throw fieldNotFound(field.name, root.name, jsonPath(path));
  return { ...found, table: ctx.table(found.info.table), type: objectTypeOf(found.def), args: ctx.args(field, found.def) };
}

/** The action a root field calls, if it is an action's field. */
function actionField(ctx: PlanContext, root: GraphQLObjectType, field: Collected) {
  const found = definitionOf(root, field.name);
  if (found?.info.kind !== "action" && found?.info.kind !== "async_action_query") return undefined;
  const action = ctx.model.actions.get(found.info.action);
  if (!action) throw actionMissing(found.info.action);
  return found.info.kind === "action" ? planAction(ctx, action, field, found.def) : planAsyncQuery(ctx, action, field, found.def);
}

function functionModel(ctx: PlanContext, key: string): FunctionModel {
  return ctx.model.functions.get(key) as FunctionModel;
}

/** One root field of a query. */
export function planQueryField(ctx: PlanContext, root: GraphQLObjectType, field: Collected): QueryField {
  const key = field.responseKey;
  if (field.name === "__typename") return { kind: "typename", key, typeName: root.name };
  const action = actionField(ctx, root, field);
  if (action) return action;
  const remote = planRemoteField(ctx, root, field, "query");
  if (remote) return remote;
  const path = ["selectionSet", key];
  const { info, table, type, args } = rootDefinition(ctx, root, field, path);
  const sub = ctx.subFields(field, type);
  switch (info.kind) {
    case "select":
      return { kind: "select", key, rows: planRows(ctx, table, args, sub, type, path) };
    case "select_by_pk":
      return { kind: "select_by_pk", key, table, pk: args, fields: planRowFields(ctx, table, sub, type, path), path };
    case "select_aggregate":
      return { kind: "select_aggregate", key, aggregate: planAggregate(ctx, table, args, sub, type, path) };
    case "function":
      return { kind: "function", key, fn: functionModel(ctx, info.fn), call: args.args, rows: planRows(ctx, table, args, sub, type, path) };
    case "function_aggregate":
      return {
        kind: "function_aggregate",
        key,
        fn: functionModel(ctx, info.fn),
        call: args.args,
        aggregate: planAggregate(ctx, table, args, sub, type, path),
      };
    case "select_stream":
      if (ctx.operation?.operation !== "subscription") throw subscriptionOnlyField(field.name, jsonPath(path));
      return {
        kind: "select_stream",
        key,
        rows: planRows(ctx, table, { where: args.where }, sub, type, path),
        cursor: streamCursor(table, args.cursor, [...path, "args", "cursor"]),
        batchSize: args.batch_size,
      };
    default:
      throw subscriptionOnlyField(field.name, jsonPath(path));
  }
}

/**
 * The one cursor of a stream, as Hasura reads it (server/src-lib/Hasura/GraphQL/Schema/SubscriptionStream.hs):
 * exactly one cursor, of exactly one column.
 */
function streamCursor(table: TableModel, value: unknown, path: Path): StreamCursor {
  const cursors = asList(value) as Array<{ initial_value?: Record<string, unknown>; ordering?: unknown }>;
  if (cursors.length !== 1) throw streamCursorInvalid("one streaming column field is expected", jsonPath(path));
  const [cursor] = cursors as [{ initial_value?: Record<string, unknown>; ordering?: unknown }];
  const entries = Object.entries(cursor.initial_value ?? {});
  if (entries.length !== 1) throw streamCursorInvalid("multiple column cursors are not supported yet", jsonPath(path));
  const [[field, initial]] = entries as [[string, unknown]];
  const column = table.columnByField.get(field);
  if (!column) throw streamCursorInvalid("one streaming column field is expected", jsonPath(path));
  return { column: column.name, field, initial, descending: cursor.ordering === "DESC" };
}

/** One root field of a mutation: a table's insert, update or delete, or a function tracked as a mutation. */
export function planMutationField(ctx: PlanContext, root: GraphQLObjectType, field: Collected): MutationField {
  const key = field.responseKey;
  if (field.name === "__typename") return { kind: "typename", key, typeName: root.name };
  const action = actionField(ctx, root, field);
  // Only query_root has asynchronous actions' query fields.
  if (action?.kind === "action") return action;
  const remote = planRemoteField(ctx, root, field, "mutation");
  if (remote) return remote;
  const path = ["selectionSet", key];
  const { info, table, type, args } = rootDefinition(ctx, root, field, path);
  if (info.kind === "function") {
    const sub = ctx.subFields(field, type);
    return { kind: "function", key, fn: functionModel(ctx, info.fn), call: args.args, rows: planRows(ctx, table, args, sub, type, path) };
  }
  return planTableMutation(ctx, info.kind as MutationKind, table, args, field, type, path);
}

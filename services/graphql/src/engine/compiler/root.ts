/** A root field of query_root as one SQL expression building its JSON: a table list, by-pk, aggregate or function field. */
import type { Sql } from "@platform/core";
import { type GraphQLObjectType, getNamedType } from "graphql";
import { fieldNotFound, jsonPath, subscriptionOnlyField } from "../errors.js";
import { fieldInfo } from "../schema/field-info.js";
import type { CompileContext } from "./context.js";
import { type Collected, collectFields } from "./fields.js";
import { functionRootJson } from "./functions.js";
import { aggregateJson, byPkJson, listJson } from "./select.js";
import { argumentValues } from "./values.js";

export function compileRootField(ctx: CompileContext, root: GraphQLObjectType, field: Collected): Sql {
  const def = root.getFields()[field.name];
  const info = def ? fieldInfo(def.extensions) : undefined;
  const path = ["selectionSet", field.responseKey];
  if (!def || !info || !("table" in info)) throw fieldNotFound(field.name, `${root.name}`, jsonPath(path));
  const table = ctx.table(info.table);
  const objectType = getNamedType(def.type) as GraphQLObjectType;
  const args = argumentValues(field.node.arguments, ctx.variables, def.args);
  const sub = collectFields(field.selections, objectType.name, ctx.fragments, ctx.variables);
  if (info.kind === "function" || info.kind === "function_aggregate")
    return functionRootJson(ctx, info.fn, info.kind === "function_aggregate", args, sub, objectType, path);
  if (info.kind === "select") return listJson(ctx, table, args, sub, objectType, null, path);
  if (info.kind === "select_by_pk") return byPkJson(ctx, table, args, sub, objectType, path);
  if (info.kind === "select_aggregate") return aggregateJson(ctx, table, args, sub, objectType, null, path);
  throw subscriptionOnlyField(field.name, jsonPath(path));
}

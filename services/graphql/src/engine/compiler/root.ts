/** A root field of query_root as one SQL expression building its JSON: a table list, by-pk, aggregate or function field. */
import type { Sql } from "@platform/core";
import type { QueryField } from "../plan/types.js";
import type { CompileContext } from "./context.js";
import { functionRootJson } from "./functions.js";
import { aggregateJson, byPkJson, listJson } from "./select.js";

/** The JSON of a data field (not `__typename`, which the plan answers as a constant, nor an action, which its handler answers). */
export function compileRootField(
  ctx: CompileContext,
  node: Exclude<
    QueryField,
    { kind: "typename" } | { kind: "action" } | { kind: "async_action_query" } | { kind: "remote" } | { kind: "select_stream" }
  >,
): Sql {
  switch (node.kind) {
    case "select":
      return listJson(ctx, node.rows, null);
    case "select_by_pk":
      return byPkJson(ctx, node);
    case "select_aggregate":
      return aggregateJson(ctx, node.aggregate, null);
    default:
      return functionRootJson(ctx, node);
  }
}

/**
 * The mutation executor: every mutation field of a request runs in order in one transaction, so
 * one failure rolls every one back; the request's signal cancels whichever statement runs.
 * Triggers can read the session as Hasura exposes it: current_setting('hasura.user').
 */
import { type Database, type Queryable, sql } from "@platform/core";
import type { GraphQLObjectType } from "graphql";
import type { CompileContext } from "../compiler/context.js";
import type { Collected } from "../compiler/fields.js";
import { runFunctionMutation } from "../compiler/functions.js";
import { runMutationField } from "../compiler/mutation.js";
import { fieldNotFound, jsonPath } from "../errors.js";
import { bindingNumbersAsText } from "../json-number.js";
import { fromPostgres } from "../pg-errors.js";
import { fieldInfo, type MutationKind } from "../schema/field-info.js";

export async function runMutation(
  db: Database,
  ctx: CompileContext,
  root: GraphQLObjectType,
  fields: Collected[],
  signal?: AbortSignal,
): Promise<string> {
  const parts = await db.transaction(
    async (transaction: Queryable) => {
      const tx = bindingNumbersAsText(transaction);
      await tx.query(
        sql`SELECT set_config('hasura.user', ${JSON.stringify({ ...ctx.session.variables, "x-hasura-role": ctx.session.role })}, true)`,
      );
      const out: string[] = [];
      for (const f of fields) out.push(`${JSON.stringify(f.responseKey)}:${await runField(ctx, tx, root, f)}`);
      return out;
    },
    { signal },
  );
  return `{"data":{${parts.join(",")}}}`;
}

/** One mutation field's JSON: a table mutation, a VOLATILE function, or __typename. */
async function runField(ctx: CompileContext, tx: Queryable, root: GraphQLObjectType, f: Collected): Promise<string> {
  if (f.name === "__typename") return JSON.stringify(root.name);
  const def = root.getFields()[f.name];
  const info = def ? fieldInfo(def.extensions) : undefined;
  if (!def || !info || !("table" in info)) throw fieldNotFound(f.name, `${root.name}`, jsonPath(["selectionSet", f.responseKey]));
  if (info.kind === "function") return runFunctionMutation(ctx, tx, info.fn, f, def);
  // A database error of an insert points at its objects, as Hasura's does.
  const path = info.kind.startsWith("insert")
    ? jsonPath(["selectionSet", f.responseKey, "args", info.kind === "insert" ? "objects" : "object"])
    : "$";
  try {
    return await runMutationField(ctx, tx, ctx.table(info.table), info.kind as MutationKind, f, def);
  } catch (error) {
    throw fromPostgres(error, path);
  }
}

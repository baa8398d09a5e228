/**
 * The mutation executor: the mutation fields of a request run in order, the table mutations in
 * one transaction, so one failure rolls every one back; the request's signal cancels whichever
 * statement runs.
 * Triggers can read the session as Hasura exposes it: current_setting('hasura.user'). The SQL
 * comes from the compiler; this executor runs it and feeds each statement's rows to the next.
 */
import { type Database, type Queryable, type Sql, sql } from "@platform/core";
import type { CompileContext } from "../compiler/context.js";
import { functionRootJson } from "../compiler/functions.js";
import { asText, checked, deleteStatement, updateStatement, type WrittenRow, writtenResponse } from "../compiler/mutation.js";
import { checkMutationSize } from "../compiler/mutation-size.js";
import { duringExecution, jsonPath } from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { bindingNumbersAsText } from "../json/number.js";
import { checkRootFields } from "../limits/statements.js";
import type { TableModel } from "../model/types.js";
import { planMutation, rootFields } from "../plan/operation.js";
import type { MutationField, MutationOutput, Path, UpdateChanges } from "../plan/types.js";
import type { CheckedOperation } from "../request/operation.js";
import { runAction } from "./action.js";
import { enqueueAction } from "./async-actions.js";
import { callContext, compileContext, type Execution } from "./context.js";
import { insertObject } from "./insert.js";
import { runRemote } from "./remote.js";
import { joinMutationRemoteRelationships, joinRemoteRelationships } from "./remote-joins.js";

/**
 * Runs a mutation's fields in order: table mutations (and VOLATILE functions) next to each other
 * share one transaction; an action between them is its handler's call, outside any transaction
 * (a handler may write through this engine itself), as Hasura runs actions apart from the database;
 * an asynchronous action is stored for the worker and answers its id.
 */
export async function runMutation(operation: CheckedOperation, execution: Execution): Promise<string> {
  const collected = rootFields(operation, operation.variables);
  checkRootFields(collected.length, execution.bounds);
  const fields = planMutation(execution.model, operation, operation.variables, collected);
  checkMutationSize(fields, compileContext(operation, execution), execution.bounds);
  const { db, signal } = execution;
  const ctx = compileContext(operation, execution);
  const call = callContext(operation, execution, ctx);
  const parts: string[] = [];
  let group: DatabaseField[] = [];
  const flush = async () => {
    if (group.length === 0) return;
    const values = await runInTransaction(db, ctx, group, signal);
    // Remote relationships of the rows written are joined once the transaction has committed.
    const joined = await joinMutationRemoteRelationships(group, values, call);
    parts.push(...group.map((f, i) => `${JSON.stringify(f.key)}:${joined[i] ?? "null"}`));
    group = [];
  };
  for (const f of fields) {
    if (f.kind !== "action" && f.kind !== "remote") {
      group.push(f);
      continue;
    }
    await flush();
    if (f.kind === "remote") {
      parts.push(`${JSON.stringify(f.key)}:${await runRemote(f, call)}`);
      continue;
    }
    if (f.action.kind === "asynchronous") {
      parts.push(`${JSON.stringify(f.key)}:${await enqueueAction(f, call)}`);
      continue;
    }
    // The action's output may reach remote relationships through its relationships to tables.
    const [answer] = await joinRemoteRelationships([f], [await runAction(f, call)], call);
    parts.push(`${JSON.stringify(f.key)}:${answer ?? "null"}`);
  }
  await flush();
  return `{"data":{${parts.join(",")}}}`;
}

type DatabaseField = Exclude<MutationField, { kind: "action" } | { kind: "remote" }>;

async function runInTransaction(db: Database, ctx: CompileContext, fields: DatabaseField[], signal?: AbortSignal): Promise<string[]> {
  return db.transaction(
    async (transaction: Queryable) => {
      const tx = bindingNumbersAsText(transaction);
      await tx.query(
        sql`SELECT set_config('hasura.user', ${JSON.stringify({ ...ctx.session.variables, "x-hasura-role": ctx.session.role })}, true)`,
      );
      const out: string[] = [];
      for (const f of fields) out.push(await runField(ctx, tx, f));
      return out;
    },
    { signal },
  );
}

/** The JSON text a statement built by `asText` answers (null when it answers no row). */
async function text(tx: Queryable, statement: Sql | null): Promise<string> {
  if (!statement) return "null";
  const { rows } = await tx.query<{ result: string | null }>(statement);
  return rows[0]?.result ?? "null";
}

/** One mutation field's JSON: a table mutation, a VOLATILE function, or __typename. */
async function runField(ctx: CompileContext, tx: Queryable, f: DatabaseField): Promise<string> {
  switch (f.kind) {
    case "typename":
      return JSON.stringify(f.typeName);
    case "function":
      return text(tx, asText(functionRootJson(ctx, f)));
    case "delete":
      return atPath("$", () => text(tx, deleteStatement(ctx, f)));
    case "update":
      return atPath("$", () => runUpdate(ctx, tx, f.table, f.changes, f.output, f.path));
    case "update_many":
      return atPath("$", async () => {
        const results: string[] = [];
        for (const changes of f.updates) results.push(await runUpdate(ctx, tx, f.table, changes, f.output, f.path));
        return `[${results.join(",")}]`;
      });
    case "insert": {
      // A database error of an insert points at its objects, as Hasura's does.
      const objects = jsonPath([...f.path, "args", f.output.kind === "row" ? "object" : "objects"]);
      return atPath(objects, async () => {
        const rows: string[] = [];
        let affected = 0;
        for (const object of f.objects) {
          const inserted = await insertObject(ctx, tx, object);
          if (inserted.row) rows.push(inserted.row.__row);
          affected += inserted.affected;
        }
        return text(tx, writtenResponse(ctx, f.table, f.output, rows, affected));
      });
    }
  }
}

/** A table mutation whose database errors are reported at `path`. */
async function atPath(path: string, run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    throw duringExecution(fromPostgres(error, path));
  }
}

async function runUpdate(
  ctx: CompileContext,
  tx: Queryable,
  table: TableModel,
  changes: UpdateChanges,
  output: MutationOutput,
  path: Path,
): Promise<string> {
  const statement = updateStatement(ctx, table, changes, path);
  const { rows } = statement ? await tx.query<WrittenRow>(statement) : { rows: [] as WrittenRow[] };
  // Hasura reports a failed update check at the root of the request.
  checked(rows, "$");
  return text(
    tx,
    writtenResponse(
      ctx,
      table,
      output,
      rows.map((r) => r.__row),
      rows.length,
    ),
  );
}

/**
 * The query executor: one statement for every root field of a query (one snapshot, one round
 * trip), compiled once into a plan whose parameters are slots, then run for each request of the
 * same shape with that request's variables and session. Each field's JSON text comes back from
 * PostgreSQL and is spliced into the response without being parsed here.
 */
import { type Compiled, compile, type Database, ident, join, type Sql, sql, statementName } from "@platform/core";
import { resolveParams, type SlotInput } from "../compiler/slot.js";
import { noResultRow } from "../errors/index.js";
import { statementFailure } from "../errors/postgres.js";
import type { QueryField } from "../plan/types.js";
import { type ActionCall, runAction } from "./action.js";
import { readAsyncAction } from "./async-actions.js";
import { type RemoteCallContext, runRemote } from "./remote.js";
import { joinRemoteRelationships } from "./remote-joins.js";

/** A root field answered by the query's statement (actions are answered by their handlers). */
export type DataField = Exclude<
  QueryField,
  { kind: "typename" } | { kind: "action" } | { kind: "async_action_query" } | { kind: "remote" }
>;

const isDataField = (f: QueryField): f is DataField =>
  f.kind !== "typename" && f.kind !== "action" && f.kind !== "async_action_query" && f.kind !== "remote";

/** Root fields selected as columns of their own; more are packed into one array (PostgreSQL's limit is 1,664 columns). */
const MAX_COLUMNS = 1000;

/** A query compiled from its plan: one statement (absent when only __typename is asked) and how its result fills the response. */
export interface CompiledQuery {
  statement: Compiled | null;
  /** The prepared statement's name (a hash of its text: equal plans share one server-side plan). */
  name: string;
  /** The data fields' columns (`f0`...), or their indexes in the one packed text[] column `f`. */
  columns: Array<string | number>;
  /** Each response key: where its JSON is (an index into `columns`) or the constant it is. */
  keys: Array<{ prefix: string; field: number | null; constant: string }>;
  /** The planned root fields, when their rows hold remote relationships to join after the statement. */
  joins?: QueryField[];
}

/** The statement of a query's root fields, each data field compiled by `compileField` to an expression of its JSON. */
export function compileQuery(fields: QueryField[], compileField: (field: DataField) => Sql): CompiledQuery {
  const data = fields.filter(isDataField);
  const values = data.map((f) => sql`(${compileField(f)})::text`);
  const packed = values.length > MAX_COLUMNS;
  const select = packed
    ? sql`SELECT ARRAY[${join(values)}] AS f`
    : sql`SELECT ${join(values.map((v, i) => sql`${v} AS ${ident(`f${i}`)}`))}`;
  const statement = values.length > 0 ? compile(select, "postgres") : null;
  return {
    statement,
    name: statement ? statementName(statement.text) : "",
    columns: data.map((_, i) => (packed ? i : `f${i}`)),
    keys: fields.map((f) => ({
      prefix: `${JSON.stringify(f.key)}:`,
      field: isDataField(f) ? data.indexOf(f) : null,
      constant: f.kind === "typename" ? JSON.stringify(f.typeName) : "null",
    })),
  };
}

/** Runs the plan for one request: the JSON text of each data field, in the plan's order. */
export async function runQueryFields(db: Database, plan: CompiledQuery, input: SlotInput, signal?: AbortSignal): Promise<string[]> {
  if (!plan.statement) return [];
  const { text } = plan.statement;
  const values = resolveParams(plan.statement.values, input);
  // Same operation shape, same text: PostgreSQL reuses the plan of the named prepared statement.
  const { rows } = await db.query<Record<string, unknown>>({ text, values }, { name: plan.name, signal }).catch((error: unknown) => {
    throw statementFailure(error, signal, { text, values, prepared: true });
  });
  const first = rows[0];
  if (!first) throw noResultRow({ text, values });
  const row = (Array.isArray(first.f) ? first.f : first) as Record<string | number, string | null>;
  return plan.columns.map((column) => row[column] ?? "null");
}

/** Runs the plan for one request: the response body (`call` joins the remote relationships of a plan that has some). */
export async function runQuery(
  db: Database,
  plan: CompiledQuery,
  input: SlotInput,
  signal: AbortSignal | undefined,
  call?: RemoteCallContext,
): Promise<string> {
  const results = await runQueryFields(db, plan, input, signal);
  let values = plan.keys.map((k) => (k.field === null ? k.constant : (results[k.field] ?? "null")));
  if (plan.joins && call) values = await joinRemoteRelationships(plan.joins, values, call);
  return `{"data":{${plan.keys.map((k, i) => k.prefix + values[i]).join(",")}}}`;
}

/**
 * A query planned with the request's own values and run once (actions and introspection are not
 * cached): its data fields in one unnamed statement and its actions through their handlers, at
 * the same time. The JSON text of every field of `fields`, in order.
 */
export async function runQueryOnce(
  db: Database,
  fields: QueryField[],
  compileField: (field: DataField) => Sql,
  input: SlotInput,
  call: ActionCall,
): Promise<string[]> {
  const plan = compileQuery(fields, compileField);
  const [results, actions] = await Promise.all([
    runQueryFields(db, { ...plan, name: "" }, input, call.signal),
    Promise.all(
      fields.map((f) =>
        f.kind === "action"
          ? runAction(f, call)
          : f.kind === "async_action_query"
            ? readAsyncAction(f, call)
            : f.kind === "remote"
              ? runRemote(f, call)
              : null,
      ),
    ),
  ]);
  return fields.map((_, i) => {
    const key = plan.keys[i];
    return actions[i] ?? (key?.field === null || key?.field === undefined ? (key?.constant ?? "null") : (results[key.field] ?? "null"));
  });
}

/**
 * A query's statements: every data root field compiled to one SQL expression building its JSON,
 * the fields put together into as few statements as the bounds allow (limits/statements.ts:
 * usually one, so one snapshot and one round trip; several, run in one read-only REPEATABLE READ
 * transaction, when the fields are too many for one), compiled once into a plan whose parameters
 * are slots, then run for each request of the same shape with that request's variables and
 * session. Each field's JSON text comes back from PostgreSQL and is spliced into the response
 * without being parsed here; the answer is counted against the request's response budget as it
 * arrives, and the cost limit, when the role has one, is checked before anything runs.
 */
import {
  type Compiled,
  compile,
  type Database,
  ident,
  join,
  type Queryable,
  ResponseTooLargeError,
  type Sql,
  sql,
  statementName,
} from "@platform/core";
import { resolveParams, type SlotInput } from "../compiler/slot.js";
import { duringExecution, noResultRow } from "../errors/index.js";
import { statementFailure } from "../errors/postgres.js";
import { type CostEstimates, checkCost } from "../limits/cost.js";
import { groupIntoStatements, type ResponseBudget, type StatementBounds } from "../limits/statements.js";
import type { QueryField } from "../plan/types.js";
import { type ActionCall, runAction } from "./action.js";
import { readAsyncAction } from "./async-actions.js";
import { type RemoteCallContext, runRemote } from "./remote.js";
import { joinRemoteRelationships } from "./remote-joins.js";

/** A root field answered by the query's statements (actions and remote fields are answered by their calls). */
export type DataField = Exclude<
  QueryField,
  { kind: "typename" } | { kind: "action" } | { kind: "async_action_query" } | { kind: "remote" } | { kind: "select_stream" }
>;

/** Streams are served by subscriptions only (the planner refuses them elsewhere). */
export const isDataField = (f: QueryField): f is DataField =>
  f.kind !== "typename" && f.kind !== "action" && f.kind !== "async_action_query" && f.kind !== "remote" && f.kind !== "select_stream";

/** One statement of a query: the JSON of some of its data fields, as columns `f0`, `f1`... */
export interface QueryStatement {
  compiled: Compiled;
  /** The prepared statement's name (a hash of its text: equal plans share one server-side plan); "" runs it unnamed. */
  name: string;
  /** How many data fields it answers, in order. */
  fields: number;
}

/** A query compiled from its plan: its statements (none when only __typename is asked) and how their results fill the response. */
export interface CompiledQuery {
  statements: QueryStatement[];
  /** Each response key: where its JSON is (an index into the data fields' results) or the constant it is. */
  keys: Array<{ prefix: string; field: number | null; constant: string }>;
  /** The planned root fields, when their rows hold remote relationships to join after the statements. */
  joins?: QueryField[];
  /** What PostgreSQL estimated these statements cost, for the cost limit (limits/cost.ts). */
  estimates?: CostEstimates;
}

/** What bounds running a query's statements for one request. */
export interface RunBounds {
  /** The answers of the request so far (a batch's, together). */
  budget: ResponseBudget;
  /** The role's cost limit; none when absent. */
  costLimit: number | undefined;
}

/** What a compiler context tells of the size of what it compiled. */
interface Measured {
  readonly subqueries: number;
}

/**
 * The statements of a query's root fields, each data field compiled by `compileField` to an
 * expression of its JSON; `measured` counts the subqueries compiled, which with `bounds` decide
 * how the fields are put into statements.
 */
export function compileQuery(
  fields: QueryField[],
  compileField: (field: DataField) => Sql,
  measured: Measured,
  bounds: StatementBounds,
): CompiledQuery {
  const data = fields.filter(isDataField);
  const weights: number[] = [];
  const values = data.map((f) => {
    const before = measured.subqueries;
    const value = sql`(${compileField(f)})::text`;
    weights.push(measured.subqueries - before);
    return value;
  });
  const statements = groupIntoStatements(weights, bounds).map((group): QueryStatement => {
    const select = sql`SELECT ${join(group.map((field, i) => sql`${values[field] as Sql} AS ${ident(`f${i}`)}`))}`;
    const compiled = compile(select, "postgres");
    return { compiled, name: statementName(compiled.text), fields: group.length };
  });
  return {
    statements,
    keys: fields.map((f) => ({
      prefix: `${JSON.stringify(f.key)}:`,
      field: isDataField(f) ? data.indexOf(f) : null,
      constant: f.kind === "typename" ? JSON.stringify(f.typeName) : "null",
    })),
  };
}

/** The size of a compiled query as the statement cache weighs it. */
export function compiledSize(plan: CompiledQuery): number {
  return plan.statements.reduce((size, s) => size + s.compiled.text.length + 64 * s.compiled.values.length, 0);
}

/** The query run unnamed: neither pg's client nor the server keeps its statements prepared. */
export function unnamed(plan: CompiledQuery): CompiledQuery {
  return { ...plan, statements: plan.statements.map((s) => ({ ...s, name: "" })) };
}

/**
 * What a statement's answer may take on the wire beyond the budget's remaining bytes before its
 * connection is closed (the protocol's own bytes, and a small answer over a nearly spent budget,
 * which is refused once read rather than by closing a connection).
 */
const RECEIVE_SLACK = 64 * 1024;

/** One statement for one request: its data fields' JSON texts, counted against the budget as they arrive. */
async function runStatement(
  db: Queryable,
  statement: QueryStatement,
  values: unknown[],
  signal: AbortSignal | undefined,
  budget: ResponseBudget,
): Promise<string[]> {
  const { text } = statement.compiled;
  // Same operation shape, same text: PostgreSQL reuses the plan of the named prepared statement.
  const { rows } = await db
    .query<Record<string, string | null>>(
      { text, values },
      { name: statement.name, signal, maxResponseBytes: budget.remaining + RECEIVE_SLACK },
    )
    .catch((error: unknown) => {
      if (error instanceof ResponseTooLargeError) throw budget.exceeded(budget.used + error.maxBytes);
      throw duringExecution(statementFailure(error, signal, { text, values, prepared: statement.name !== "" }));
    });
  const row = rows[0];
  if (!row) throw noResultRow({ text, values });
  const texts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < statement.fields; i++) {
    const value = row[`f${i}`] ?? "null";
    bytes += value.length;
    texts.push(value);
  }
  budget.take(bytes);
  return texts;
}

/** Runs the plan for one request: the JSON text of each data field, in the plan's order. */
export async function runQueryFields(
  db: Database,
  plan: CompiledQuery,
  input: SlotInput,
  signal: AbortSignal | undefined,
  bounds: RunBounds,
): Promise<string[]> {
  const { statements } = plan;
  if (statements.length === 0) return [];
  // A batch whose earlier answers took the whole budget: nothing more is sent.
  if (bounds.budget.remaining === 0) throw bounds.budget.exceeded(bounds.budget.used);
  const values = statements.map((s) => resolveParams(s.compiled.values, input));
  if (bounds.costLimit !== undefined) {
    const resolved = statements.map((s, i) => ({ text: s.compiled.text, values: values[i] as unknown[] }));
    await checkCost(db, resolved, bounds.costLimit, plan.estimates, signal);
  }
  const [only] = statements;
  if (statements.length === 1 && only) return runStatement(db, only, values[0] as unknown[], signal, bounds.budget);
  // Several statements read one snapshot, so together they answer what one statement would.
  return db.transaction(
    async (tx) => {
      const results: string[] = [];
      for (const [i, statement] of statements.entries())
        results.push(...(await runStatement(tx, statement, values[i] as unknown[], signal, bounds.budget)));
      return results;
    },
    { signal, isolation: "repeatable read", readOnly: true },
  );
}

/** Runs the plan for one request: the response body (`call` joins the remote relationships of a plan that has some). */
export async function runQuery(
  db: Database,
  plan: CompiledQuery,
  input: SlotInput,
  signal: AbortSignal | undefined,
  bounds: RunBounds,
  call?: RemoteCallContext,
): Promise<string> {
  const results = await runQueryFields(db, plan, input, signal, bounds);
  let values = plan.keys.map((k) => (k.field === null ? k.constant : (results[k.field] ?? "null")));
  if (plan.joins && call) values = await joinRemoteRelationships(plan.joins, values, call);
  return `{"data":{${plan.keys.map((k, i) => k.prefix + values[i]).join(",")}}}`;
}

/**
 * A query planned with the request's own values and run once (actions and introspection are not
 * cached): its data fields in unnamed statements and its actions through their handlers, at the
 * same time. The JSON text of every field of `fields`, in order.
 */
export async function runQueryOnce(
  db: Database,
  plan: CompiledQuery,
  fields: QueryField[],
  input: SlotInput,
  bounds: RunBounds,
  call: ActionCall,
): Promise<string[]> {
  const [results, actions] = await Promise.all([
    runQueryFields(db, unnamed(plan), input, call.signal, bounds),
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

/**
 * Asynchronous actions (https://hasura.io/docs/latest/actions/async-actions/), stored as Hasura
 * stores them in `hdb_catalog.hdb_action_log` (made by metadata/store.ts): the mutation inserts the call and answers its id
 * at once; a worker, which any number of engine instances may run together, claims waiting calls
 * with row locks (`FOR UPDATE SKIP LOCKED`, so each call is delivered once), calls the handler and
 * records its output or its error; the query field of the same name reads the entry back, only
 * for the session that made the call (the admin reads any).
 */
import { type Database, type Logger, sql } from "@platform/core";
import { duringExecution, HasuraError } from "../errors/index.js";
import { statementFailure } from "../errors/postgres.js";
import { jsonText, RawJson } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import type { Model } from "../model/types.js";
import type { ActionNode, AsyncQueryNode } from "../plan/types.js";
import { forwardableHeaders } from "../request/client-headers.js";
import { ADMIN_ROLE } from "../request/session.js";
import { type ActionCall, callHandler, outputJson } from "./action.js";

function sessionJson(call: ActionCall): string {
  const { session } = call.compile;
  return JSON.stringify({ ...session.variables, "x-hasura-role": session.role });
}

async function run<T>(call: Pick<ActionCall, "db" | "signal">, statement: ReturnType<typeof sql>): Promise<T[]> {
  const { rows } = await call.db.query<T>(statement, { signal: call.signal }).catch((error: unknown) => {
    throw duringExecution(statementFailure(error, call.signal));
  });
  return rows;
}

/** The mutation of an asynchronous action: the call stored for the worker; its id (JSON text). */
export async function enqueueAction(node: ActionNode, call: ActionCall): Promise<string> {
  const headers = forwardableHeaders(call.clientHeaders).map(([name, value]) => ({ name, value }));
  const [row] = await run<{ id: string }>(
    call,
    sql`INSERT INTO hdb_catalog.hdb_action_log (action_name, input_payload, request_headers, session_variables, status)
        VALUES (${node.action.name}, ${jsonText(node.input)}::jsonb, ${JSON.stringify(headers)}::jsonb, ${sessionJson(call)}::jsonb, 'created')
        RETURNING id::text AS id`,
  );
  return JSON.stringify(row?.id ?? null);
}

interface LogRow {
  id: string;
  created_at: string;
  errors: string | null;
  response: string | null;
}

/** The query field of an asynchronous action: the caller's own log entry, or null. */
export async function readAsyncAction(node: AsyncQueryNode, call: ActionCall): Promise<string> {
  const session = call.compile.session;
  const own = session.role === ADMIN_ROLE ? sql`` : sql` AND session_variables = ${sessionJson(call)}::jsonb`;
  const [row] = await run<LogRow>(
    call,
    sql`SELECT id::text AS id, to_json(created_at)::text AS created_at, errors::text AS errors, response_payload::text AS response
        FROM hdb_catalog.hdb_action_log WHERE id = ${String(node.id)}::uuid AND action_name = ${node.action.name}${own}`,
  );
  if (!row) return "null";
  const out: Record<string, unknown> = {};
  for (const f of node.fields) {
    if (f.kind === "typename") out[f.key] = f.typeName;
    else if (f.kind === "async_field")
      out[f.key] = f.field === "id" ? row.id : new RawJson(f.field === "errors" ? (row.errors ?? "null") : row.created_at);
    else
      out[f.key] = row.response === null ? null : new RawJson(await outputJson(node.action, parseJsonBody(row.response), f.fields, call));
  }
  return jsonText(out);
}

interface ClaimedRow {
  id: string;
  action_name: string;
  input: string;
  headers: string;
  session: string;
}

export interface WorkerOptions {
  /** How often waiting calls are looked for (HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL). */
  intervalMs: number;
  /** How many calls one look claims (HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_BATCH_SIZE). */
  batchSize: number;
  env: Record<string, string | undefined>;
  logger?: Pick<Logger, "error" | "warn"> | undefined;
}

/** A call's failure as Hasura records it in `errors`: `{path, error, code}`. */
function recordedError(error: unknown): { path: string; error: string; code: string } {
  if (error instanceof HasuraError) return { path: error.path, error: error.message, code: error.code };
  return { path: "$", error: "unexpected error calling the action handler", code: "unexpected" };
}

/** Delivers stored asynchronous calls; start() with the engine, stop() before closing the database. */
export class AsyncActionWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly abort = new AbortController();
  /** Calls this instance has claimed and not yet finished. */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly model: () => Model,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    if (this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((error: unknown) => this.options.logger?.error({ err: error }, "async action worker failed"))
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops looking, abandons calls in flight and hands them back to any instance, as Hasura does at shutdown. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.abort.abort(new Error("the engine is shutting down"));
    await this.running;
    const left = [...this.claimed];
    if (left.length > 0)
      await this.db.query(
        sql`UPDATE hdb_catalog.hdb_action_log SET status = 'created' WHERE status = 'processing' AND id = ANY(${left}::uuid[])`,
      );
  }

  /** Claims and delivers one batch of waiting calls; how many it delivered. */
  async tick(): Promise<number> {
    const model = this.model();
    const names = [...model.actions.values()].filter((a) => a.kind === "asynchronous").map((a) => a.name);
    if (names.length === 0) return 0;
    const { rows } = await this.db.query<ClaimedRow>(
      sql`UPDATE hdb_catalog.hdb_action_log SET status = 'processing'
          WHERE id IN (SELECT id FROM hdb_catalog.hdb_action_log WHERE status = 'created' AND action_name = ANY(${names}::text[])
                       ORDER BY created_at LIMIT ${this.options.batchSize} FOR UPDATE SKIP LOCKED)
          RETURNING id::text AS id, action_name, input_payload::text AS input, request_headers::text AS headers, session_variables::text AS session`,
    );
    for (const row of rows) this.claimed.add(row.id);
    await Promise.all(rows.map((row) => this.deliver(model, row)));
    return rows.length;
  }

  private async deliver(model: Model, row: ClaimedRow): Promise<void> {
    let outcome: { status: "completed"; response: string } | { status: "error"; errors: string };
    try {
      const action = model.actions.get(row.action_name);
      if (!action) throw new Error(`action ${row.action_name} is no longer in the metadata`);
      const headers = JSON.parse(row.headers) as Array<{ name: string; value: string }>;
      const value = await callHandler({
        action,
        input: parseJsonBody(row.input),
        sessionVariables: JSON.parse(row.session) as Record<string, string>,
        forwarded: headers.map((h) => [h.name, h.value]),
        types: model.customTypes,
        env: this.options.env,
        signal: this.abort.signal,
      });
      outcome = { status: "completed", response: jsonText(value) };
    } catch (error) {
      if (this.abort.signal.aborted) return;
      if (!(error instanceof HasuraError)) this.options.logger?.error({ err: error, actionId: row.id }, "async action call failed");
      outcome = { status: "error", errors: JSON.stringify(recordedError(error)) };
    }
    const statement =
      outcome.status === "completed"
        ? sql`UPDATE hdb_catalog.hdb_action_log SET status = 'completed', response_payload = ${outcome.response}::jsonb, response_received_at = now() WHERE id = ${row.id}::uuid`
        : sql`UPDATE hdb_catalog.hdb_action_log SET status = 'error', errors = ${outcome.errors}::jsonb, response_received_at = now() WHERE id = ${row.id}::uuid`;
    await this.db.query(statement);
    this.claimed.delete(row.id);
  }
}

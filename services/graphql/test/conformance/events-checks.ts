/**
 * What test_events.py and test_scheduled_triggers.py call, ported: HGECtx's `v1q` / `v1metadataq`
 * (context.py: POST, the status asserted, the JSON body), utils.py's `insert` / `insert_many` /
 * `update` / `delete` (legacy /v1/query data operations) and `until_asserts_pass`, validate.py's
 * `check_event` / `validate_event*`, pytest's `raises(queue.Empty)`, the per-method state of
 * classes that name their own `setup_files`, and direct reads of the engine's database (the
 * Python tests' `metadata_schema_url` engine).
 */

import { type DeliveredEvent, QueueEmpty } from "./events-webhook.js";
import { loadFixture } from "./fixtures.js";
import { assertEqual, dig, type InlineContext, InlineFailure } from "./inline.js";
import type { Service } from "./service.js";

export interface Table {
  schema: string;
  name: string;
}
export type Row = Record<string, unknown>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `hge_ctx.execute_query(q, path, headers, expected_status_code)`: the admin secret is added by the service. */
export async function execute(
  ctx: InlineContext,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  expected = 200,
): Promise<unknown> {
  const reply = await ctx.anyq(path, body, headers);
  if (reply.status !== expected) {
    const type = typeof body === "object" && body !== null ? ` ${(body as { type?: unknown }).type ?? ""}` : "";
    throw new InlineFailure(`POST ${path}${type}: expected ${reply.status} to be ${expected}`, {
      url: path,
      expectedStatus: expected,
      actualStatus: reply.status,
      actual: reply.body,
    });
  }
  return reply.body;
}

export const v1q = (ctx: InlineContext, body: unknown, headers: Record<string, string> = {}, expected = 200) =>
  execute(ctx, "/v1/query", body, headers, expected);
export const v1qFile = (ctx: InlineContext, file: string, expected = 200) => v1q(ctx, loadFixture(file), {}, expected);
export const v1metadataq = (ctx: InlineContext, body: unknown, expected = 200) => execute(ctx, "/v1/metadata", body, {}, expected);
export const v1metadataqFile = (ctx: InlineContext, file: string, expected = 200) => v1metadataq(ctx, loadFixture(file), expected);

/** utils.py `insert_many(hge_ctx, table, rows, returning=[], headers)`. */
export const insertMany = (ctx: InlineContext, table: Table, rows: Row[], headers: Record<string, string> = {}) =>
  v1q(ctx, { type: "insert", args: { table, objects: rows, returning: [] } }, headers);
export const insert = (ctx: InlineContext, table: Table, row: Row, headers: Record<string, string> = {}) =>
  insertMany(ctx, table, [row], headers);
export const update = (ctx: InlineContext, table: Table, where: Row, set: Row, headers: Record<string, string> = {}) =>
  v1q(ctx, { type: "update", args: { table, where, $set: set } }, headers);
export const remove = (ctx: InlineContext, table: Table, where: Row, headers: Record<string, string> = {}) =>
  v1q(ctx, { type: "delete", args: { table, where } }, headers);

/** `until_asserts_pass(tries, func)`: again after 0.3 s while an assertion fails; the last try's failure stands. */
export async function untilAssertsPass(tries: number, func: () => Promise<void>): Promise<void> {
  for (let x = 0; x < tries; x++) {
    if (x === tries - 1) return func();
    try {
      await func();
      return;
    } catch (error) {
      if (!(error instanceof InlineFailure) || error instanceof QueueEmpty) throw error;
      await sleep(300);
    }
  }
}

/** `with pytest.raises(queue.Empty): work()`: an assertion failure inside still fails the test. */
export async function raisesQueueEmpty(what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof QueueEmpty) return;
    throw error;
  }
  throw new InlineFailure(`${what}: DID NOT RAISE queue.Empty (an event arrived that should not have)`);
}

/** A class's `setup_files` / `teardown_files` around one test (per_method_tests_db_state, POSTed to /v1/query). */
export async function withStateFiles(ctx: InlineContext, setup: string[], teardown: string[], body: () => Promise<void>) {
  for (const file of setup) await v1qFile(ctx, file);
  try {
    await body();
  } finally {
    for (const file of teardown) await v1qFile(ctx, file);
  }
}

function has(obj: unknown, key: string): boolean {
  return typeof obj === "object" && obj !== null && !Array.isArray(obj) && key in obj;
}

/** `check_keys(keys, obj)` */
function checkKeys(keys: string[], obj: unknown, where: string, body: unknown): void {
  for (const k of keys) if (!has(obj, k)) throw new InlineFailure(`assert '${k}' in ${where}`, { actual: body });
}

/** `validate_event_webhook(path, webhook_path)` */
export function validateEventWebhook(path: string, webhookPath: string, ev?: DeliveredEvent): void {
  assertEqual(path, webhookPath, "event path", ev);
}

/** `validate_event_headers(ev_headers, headers)`: each expected header, looked up case-insensitively. */
export function validateEventHeaders(evHeaders: Record<string, string>, headers: Record<string, string>, ev?: DeliveredEvent): void {
  for (const [key, value] of Object.entries(headers))
    assertEqual(evHeaders[key.toLowerCase()] ?? null, value, `event header ${key}`, ev ?? evHeaders);
}

export interface CheckOptions {
  headers?: Record<string, string>;
  webhookPath?: string;
  sessionVariables?: Record<string, string>;
  retry?: number;
  /** Seconds, as `get_timeout` (3). */
  getTimeout?: number;
}

/** `validate_event(hge_ctx, trig_name, table, operation, ev_full, exp_ev_data, ...)` on Postgres. */
export function validateEvent(
  trigName: string,
  table: Table,
  operation: string,
  evFull: DeliveredEvent,
  expData: unknown,
  o: CheckOptions = {},
) {
  const body = evFull.body;
  const ev = dig(body, "event");
  validateEventWebhook(evFull.path, o.webhookPath ?? "/", evFull);
  validateEventHeaders(evFull.headers, o.headers ?? {}, evFull);
  checkKeys(["created_at", "event", "id", "table", "trigger"], body, "ev_payload", evFull);
  checkKeys(["data", "op"], ev, "ev_payload['event']", evFull);
  checkKeys(["name"], dig(body, "trigger"), "ev_payload['trigger']", evFull);
  assertEqual(dig(body, "table"), table, "$.table", evFull);
  assertEqual(dig(body, "trigger", "name"), trigName, "$.trigger.name", evFull);
  assertEqual(dig(ev, "op"), operation, "$.event.op", evFull);
  assertEqual(dig(ev, "session_variables"), o.sessionVariables ?? { "x-hasura-role": "admin" }, "$.event.session_variables", evFull);
  assertEqual(dig(ev, "data"), expData, "$.event.data", evFull);
  assertEqual(dig(body, "delivery_info", "current_retry"), o.retry ?? 0, "$.delivery_info.current_retry", evFull);
}

/** `check_event(...)`: the next delivered event, within `get_timeout` seconds, validated. */
export async function checkEvent(
  receiver: { getEvent(ms: number): Promise<DeliveredEvent> },
  trigName: string,
  table: Table,
  operation: string,
  expData: unknown,
  o: CheckOptions = {},
): Promise<void> {
  const evFull = await receiver.getEvent((o.getTimeout ?? 3) * 1000);
  try {
    validateEvent(trigName, table, operation, evFull, expData, o);
  } catch (error) {
    if (error instanceof InlineFailure) error.message = `check_event ${trigName} ${operation}: ${error.message}`;
    throw error;
  }
}

/** Rows read from the engine's own database (hdb_catalog), as the Python tests' SQLAlchemy engine reads them. */
export async function engineRows<T = Row>(service: Service, text: string, values: unknown[] = []): Promise<T[]> {
  const { rows } = await service.db.query<T>({ text, values });
  return rows;
}

/**
 * The metadata API's commands on events themselves (https://hasura.io/docs/latest/api-reference/metadata-api/event-triggers/):
 * `pg_invoke_event_trigger` (a MANUAL event with the given payload as `new`, recorded with the
 * admin's session, for a trigger with `enable_manual`), `pg_redeliver_event` (an event delivered
 * or failed goes out again with its tries reset; refused while an instance holds it),
 * `pg_get_event_logs`, `pg_get_event_invocation_logs`, `pg_get_event_by_id`, and
 * `pg_trigger_event_trigger_cleanup` (a cleanup run now, cleanup.ts). They read and
 * write `hdb_catalog.event_log` directly; they do not change metadata.
 */
import type { Database } from "@platform/core";
import { eventBusy, eventNotFound, eventTriggerNotFound, manualModeNotEnabled } from "../errors/index.js";
import { argsObject, type Json, optionalBoolean, parseFailed, requireKey, requireString, sourceName } from "../metadata/args.js";
import { ARGS } from "../metadata/edit.js";
import type { Metadata } from "../metadata/types.js";
import { hasEventCatalog } from "./catalog.js";
import { cleanEvents } from "./cleanup.js";
import { paging } from "./paging.js";
import { runScheduledCommand, SCHEDULED_COMMANDS } from "./scheduled-api.js";
import { eventTriggersOf } from "./triggers.js";

export const EVENT_DATA_COMMANDS = new Set([
  "pg_invoke_event_trigger",
  "invoke_event_trigger",
  "pg_redeliver_event",
  "redeliver_event",
  "pg_get_event_logs",
  "pg_get_event_invocation_logs",
  "pg_get_event_by_id",
  "pg_trigger_event_trigger_cleanup",
  "cleanup_event_trigger_logs",
  ...SCHEDULED_COMMANDS,
]);

export interface EventDataContext {
  db: Database;
  metadata: Metadata;
  /** How long an instance's hold on an event lasts (redelivery waits for it to end). */
  leaseMs: number;
  /** Tells this instance's worker an event is due now. */
  wake(): void;
  /** Tells this instance's scheduled events worker an event may be due now. */
  wakeScheduled?(): void;
}

const EVENT_COLUMNS = `id, schema_name, table_name, trigger_name, payload, delivered, error, tries,
  created_at, locked, next_retry_at, archived`;
const INVOCATION_COLUMNS = "id, trigger_name, event_id, status AS http_status, request, response, created_at";

function triggerOf(ctx: EventDataContext, args: Json) {
  const source = sourceName(args, ARGS);
  const name = requireString(args, "name", ARGS);
  const trigger = eventTriggersOf(ctx.metadata, source).get(name);
  if (!trigger) throw eventTriggerNotFound(name);
  return trigger;
}

async function invoke(ctx: EventDataContext, args: Json): Promise<unknown> {
  const trigger = triggerOf(ctx, args);
  const payload = requireKey(args, "payload", ARGS);
  if (!trigger.enableManual) throw manualModeNotEnabled();
  const id = await ctx.db.transaction(async (tx) => {
    await tx.query({ text: "SELECT set_config('hasura.user', $1, true)", values: [JSON.stringify({ "x-hasura-role": "admin" })] });
    const { rows } = await tx.query<{ id: string }>({
      text: "SELECT hdb_catalog.insert_event_log($1, $2, $3, 'MANUAL', $4::json) AS id",
      values: [trigger.table.schema, trigger.table.name, trigger.name, JSON.stringify({ old: null, new: payload })],
    });
    return rows[0]?.id as string;
  });
  ctx.wake();
  return { event_id: id };
}

async function redeliver(ctx: EventDataContext, args: Json): Promise<unknown> {
  sourceName(args, ARGS);
  const id = requireString(args, "event_id", ARGS);
  // Without an event catalog (no trigger served yet, or clear_metadata dropped it) there is no event.
  if (!(await hasEventCatalog(ctx.db))) throw eventNotFound();
  const { rows } = await ctx.db.query<{ id: string }>({
    text: `UPDATE hdb_catalog.event_log SET delivered = false, error = false, tries = 0, next_retry_at = NULL
      WHERE id = $1 AND (locked IS NULL OR locked < now() - $2 * interval '1 millisecond')
      RETURNING id`,
    values: [id, ctx.leaseMs],
  });
  if (rows.length === 0) {
    const found = await ctx.db.query({ text: "SELECT 1 FROM hdb_catalog.event_log WHERE id = $1", values: [id] });
    throw found.rows.length === 0 ? eventNotFound() : eventBusy();
  }
  ctx.wake();
  return { message: "success" };
}

const STATUS_FILTERS: Record<string, string> = {
  pending: "AND NOT delivered AND NOT error AND NOT archived",
  processed: "AND (delivered OR error)",
  all: "",
};

async function eventLogs(ctx: EventDataContext, args: Json): Promise<unknown> {
  const trigger = triggerOf(ctx, args);
  const status = args.status === undefined || args.status === null ? "all" : args.status;
  const filter = typeof status === "string" ? STATUS_FILTERS[status] : undefined;
  if (filter === undefined) throw parseFailed('status must be one of "pending", "processed" or "all"', ARGS);
  const { limit, offset } = paging(args);
  const { rows } = await ctx.db.query({
    text: `SELECT ${EVENT_COLUMNS} FROM hdb_catalog.event_log WHERE trigger_name = $1 ${filter}
      ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
    values: [trigger.name, limit, offset],
  });
  if (optionalBoolean(args, "get_invocations", ARGS) !== true) return rows;
  return Promise.all(
    rows.map(async (event) => ({ ...event, invocations: await invocationsOf(ctx, (event as { id: string }).id, 100, 0) })),
  );
}

async function invocationsOf(ctx: EventDataContext, eventId: string, limit: number, offset: number) {
  const { rows } = await ctx.db.query({
    text: `SELECT ${INVOCATION_COLUMNS} FROM hdb_catalog.event_invocation_logs WHERE event_id = $1
      ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
    values: [eventId, limit, offset],
  });
  return rows;
}

async function invocationLogs(ctx: EventDataContext, args: Json): Promise<unknown> {
  const trigger = triggerOf(ctx, args);
  const { limit, offset } = paging(args);
  const { rows } = await ctx.db.query({
    text: `SELECT ${INVOCATION_COLUMNS} FROM hdb_catalog.event_invocation_logs WHERE trigger_name = $1
      ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
    values: [trigger.name, limit, offset],
  });
  return rows;
}

async function eventById(ctx: EventDataContext, args: Json): Promise<unknown> {
  sourceName(args, ARGS);
  const id = requireString(args, "event_id", ARGS);
  if (!(await hasEventCatalog(ctx.db))) throw eventNotFound();
  const { rows } = await ctx.db.query({ text: `SELECT ${EVENT_COLUMNS} FROM hdb_catalog.event_log WHERE id = $1`, values: [id] });
  if (rows.length === 0) throw eventNotFound();
  const { limit, offset } = paging(args, { limitKey: "invocation_log_limit", offsetKey: "invocation_log_offset" });
  return { event: rows[0], invocations: await invocationsOf(ctx, id, limit, offset) };
}

async function cleanupNow(ctx: EventDataContext, args: Json): Promise<unknown> {
  const source = sourceName(args, ARGS);
  const name = requireString(args, "event_trigger_name", ARGS);
  const trigger = eventTriggersOf(ctx.metadata, source).get(name);
  if (!trigger) throw eventTriggerNotFound(name);
  const positive = (key: string, fallback?: number) => {
    const value = args[key] ?? fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw parseFailed(`${key} must be a positive number`, ARGS);
    return value;
  };
  const deleted = await cleanEvents(ctx.db, name, {
    clearOlderThanHours: positive("clear_older_than"),
    batchSize: Math.floor(positive("batch_size", 10_000)),
    timeoutSec: positive("timeout", 60),
    cleanInvocationLogs: optionalBoolean(args, "clean_invocation_logs", ARGS) === true,
  });
  return { message: "success", ...deleted };
}

/** Runs one of {@link EVENT_DATA_COMMANDS}. */
export function runEventDataCommand(type: string, raw: unknown, ctx: EventDataContext): Promise<unknown> {
  const args = argsObject(raw, ARGS);
  if (SCHEDULED_COMMANDS.has(type)) return runScheduledCommand(type, args, ctx);
  switch (type) {
    case "pg_invoke_event_trigger":
    case "invoke_event_trigger":
      return invoke(ctx, args);
    case "pg_redeliver_event":
    case "redeliver_event":
      return redeliver(ctx, args);
    case "pg_get_event_logs":
      return eventLogs(ctx, args);
    case "pg_get_event_invocation_logs":
      return invocationLogs(ctx, args);
    case "pg_trigger_event_trigger_cleanup":
    case "cleanup_event_trigger_logs":
      return cleanupNow(ctx, args);
    default:
      return eventById(ctx, args);
  }
}

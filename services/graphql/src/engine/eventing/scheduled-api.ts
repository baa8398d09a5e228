/**
 * The metadata API's commands on scheduled events (https://hasura.io/docs/latest/api-reference/metadata-api/scheduled-triggers/):
 * `create_scheduled_event` (a one-off event in `hdb_catalog.hdb_scheduled_events`, answered with
 * its `event_id`), `delete_scheduled_event` (one-off or cron), `get_scheduled_events` and
 * `get_scheduled_event_invocations` (with `limit`, `offset`, `status` and `get_rows_count`; without
 * a limit, Hasura answers every row: here at most 100,000). They read and write the tables
 * directly; they do not change metadata.
 */
import { scheduledEventNotFound } from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { asArray, at, type Json, optionalBoolean, optionalString, parseFailed, requireString } from "../metadata/args.js";
import { ARGS } from "../metadata/edit.js";
import { checkTransforms } from "../metadata/transform-checks.js";
import type { EventDataContext } from "./api.js";
import { retryConfJson } from "./cron.js";
import { MAX_LIMIT, paging } from "./paging.js";
import { type ScheduledKind, SCHEDULED_TABLES as TABLES, utcJson } from "./scheduled-queue.js";

export const SCHEDULED_COMMANDS = new Set([
  "create_scheduled_event",
  "delete_scheduled_event",
  "get_scheduled_events",
  "get_scheduled_event_invocations",
]);

const STATUSES = ["scheduled", "locked", "delivered", "error", "dead"];

/** Columns as Hasura's get_scheduled_events answers them (CronEvent and OneOffScheduledEvent). */
const EVENT_COLUMNS: Record<ScheduledKind, string> = {
  cron: `id, trigger_name, ${utcJson("scheduled_time")} AS scheduled_time, status, tries,
    ${utcJson("created_at")} AS created_at, ${utcJson("next_retry_at")} AS next_retry_at`,
  one_off: `id, webhook_conf, ${utcJson("scheduled_time")} AS scheduled_time, retry_conf, payload, header_conf, status, tries,
    ${utcJson("created_at")} AS created_at, ${utcJson("next_retry_at")} AS next_retry_at, comment`,
};

const given = (value: unknown) => value !== undefined && value !== null;

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2})(?::?(\d{2}))?)?$/i;

/**
 * An ISO 8601 date and time (without a zone it is read as UTC), checked field by field so that
 * PostgreSQL never meets a date it refuses (30 February, hour 25, a zone 20 hours away).
 */
function timestamp(args: Json, key: string): string {
  const text = requireString(args, key, ARGS).trim();
  const m = TIMESTAMP.exec(text);
  const field = (i: number) => Number(m?.[i] ?? 0);
  const [year, month, day, hour, minute, second] = [field(1), field(2), field(3), field(4), field(5), field(6)];
  const [zoneHours, zoneMinutes] = [field(8), field(9)];
  const valid =
    m !== null &&
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= new Date(Date.UTC(year, month, 0)).getUTCDate() &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    zoneHours <= 15 &&
    zoneMinutes <= 59;
  if (!valid) throw parseFailed("could not parse timestamp", at(ARGS, key));
  return m[7] ? text : `${text}Z`;
}

function kindOf(args: Json): ScheduledKind {
  const type = requireString(args, "type", ARGS);
  if (type !== "cron" && type !== "one_off") throw parseFailed('type must be "cron" or "one_off"', at(ARGS, "type"));
  return type;
}

function statuses(args: Json): string[] {
  if (!given(args.status)) return [];
  return asArray(args.status, at(ARGS, "status")).map((s, i) => {
    if (typeof s !== "string" || !STATUSES.includes(s))
      throw parseFailed(`status must be one of ${STATUSES.join(", ")}`, at(at(ARGS, "status"), i));
    return s;
  });
}

/** The insert, with a database refusal in Hasura's error shape. */
async function insertOneOff(ctx: EventDataContext, statement: { text: string; values: unknown[] }) {
  try {
    return await ctx.db.query<{ id: string }>(statement);
  } catch (error) {
    throw fromPostgres(error, ARGS);
  }
}

async function createEvent(ctx: EventDataContext, args: Json): Promise<unknown> {
  const webhook = requireString(args, "webhook", ARGS);
  const scheduleAt = timestamp(args, "schedule_at");
  if (given(args.headers)) asArray(args.headers, at(ARGS, "headers"));
  // Checked as create_cron_trigger checks them; kept in our own columns (Hasura's table has none).
  checkTransforms(args, ARGS);
  const comment = optionalString(args, "comment", ARGS);
  const { rows } = await insertOneOff(ctx, {
    text: `INSERT INTO hdb_catalog.hdb_scheduled_events
        (webhook_conf, scheduled_time, payload, header_conf, retry_conf, comment, request_transform, response_transform)
      VALUES ($1::json, $2::timestamptz, $3::json, $4::json, $5::json, $6, $7::json, $8::json) RETURNING id`,
    values: [
      JSON.stringify(webhook),
      scheduleAt,
      given(args.payload) ? JSON.stringify(args.payload) : null,
      JSON.stringify(given(args.headers) ? args.headers : []),
      JSON.stringify(retryConfJson(args.retry_conf)),
      comment ?? null,
      given(args.request_transform) ? JSON.stringify(args.request_transform) : null,
      given(args.response_transform) ? JSON.stringify(args.response_transform) : null,
    ],
  });
  ctx.wakeScheduled?.();
  return { message: "success", event_id: rows[0]?.id };
}

async function deleteEvent(ctx: EventDataContext, args: Json): Promise<unknown> {
  const kind = kindOf(args);
  const id = requireString(args, "event_id", ARGS);
  const { rowCount } = await ctx.db.query({ text: `DELETE FROM ${TABLES[kind].events} WHERE id = $1`, values: [id] });
  if (!rowCount) throw scheduledEventNotFound(id);
  return { message: "success" };
}

async function listEvents(ctx: EventDataContext, args: Json): Promise<unknown> {
  const kind = kindOf(args);
  const trigger = kind === "cron" ? requireString(args, "trigger_name", ARGS) : undefined;
  const wanted = statuses(args);
  const { limit, offset } = paging(args, { defaultLimit: MAX_LIMIT });
  const where = `WHERE ($1::text IS NULL OR ${kind === "cron" ? "trigger_name = $1" : "true"})
    AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[]))`;
  const { rows } = await ctx.db.query({
    text: `SELECT ${EVENT_COLUMNS[kind]} FROM ${TABLES[kind].events} ${where}
      ORDER BY scheduled_time, id LIMIT $3 OFFSET $4`,
    values: [trigger ?? null, wanted, limit, offset],
  });
  if (optionalBoolean(args, "get_rows_count", ARGS) !== true) return { events: rows };
  const counted = await ctx.db.query<{ count: number }>({
    text: `SELECT count(*)::int AS count FROM ${TABLES[kind].events} ${where}`,
    values: [trigger ?? null, wanted],
  });
  return { events: rows, count: counted.rows[0]?.count ?? 0 };
}

async function listInvocations(ctx: EventDataContext, args: Json): Promise<unknown> {
  const kind = kindOf(args);
  const eventId = optionalString(args, "event_id", ARGS) ?? null;
  const trigger = kind === "cron" && eventId === null ? requireString(args, "trigger_name", ARGS) : null;
  const { limit, offset } = paging(args, { defaultLimit: MAX_LIMIT });
  const { events, invocations } = TABLES[kind];
  const where = `WHERE ($1::text IS NULL OR i.event_id = $1) ${kind === "cron" ? "AND ($2::text IS NULL OR e.trigger_name = $2)" : "AND $2::text IS NULL"}`;
  const from = `FROM ${invocations} i JOIN ${events} e ON e.id = i.event_id ${where}`;
  const { rows } = await ctx.db.query({
    text: `SELECT i.id, i.event_id, i.status, i.request, i.response, ${utcJson("i.created_at")} AS created_at
      ${from} ORDER BY i.created_at DESC, i.id LIMIT $3 OFFSET $4`,
    values: [eventId, trigger, limit, offset],
  });
  if (optionalBoolean(args, "get_rows_count", ARGS) !== true) return { invocations: rows };
  const counted = await ctx.db.query<{ count: number }>({ text: `SELECT count(*)::int AS count ${from}`, values: [eventId, trigger] });
  return { invocations: rows, count: counted.rows[0]?.count ?? 0 };
}

/** Runs one of {@link SCHEDULED_COMMANDS}. */
export function runScheduledCommand(type: string, args: Json, ctx: EventDataContext): Promise<unknown> {
  switch (type) {
    case "create_scheduled_event":
      return createEvent(ctx, args);
    case "delete_scheduled_event":
      return deleteEvent(ctx, args);
    case "get_scheduled_events":
      return listEvents(ctx, args);
    default:
      return listInvocations(ctx, args);
  }
}

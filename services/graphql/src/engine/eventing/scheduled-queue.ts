/**
 * `hdb_catalog.hdb_cron_events` and `hdb_catalog.hdb_scheduled_events` as work queues shared by
 * every engine instance, as Hasura's processor uses them (server/src-lib/Hasura/Eventing/ScheduledTrigger.hs:
 * a due row is set `locked`, then `delivered`, `error`, or back to `scheduled` with
 * `next_retry_at`; one past its tolerance is set `dead`). The difference: `locked_at` makes the
 * lock a lease (renewed while the delivery runs), so a dead instance's rows are taken over once
 * it is over, instead of Hasura unlocking every locked row when an instance starts
 * (unlockAllLockedScheduledEvents), which hands rows another live instance is delivering to a
 * second one. Each attempt's invocation log is written in the transaction recording its state.
 */
import type { Database, Queryable } from "@platform/core";
import type { Invocation } from "./webhook.js";

export type ScheduledKind = "cron" | "one_off";

export const SCHEDULED_TABLES = {
  cron: { events: "hdb_catalog.hdb_cron_events", invocations: "hdb_catalog.hdb_cron_event_invocation_logs" },
  one_off: { events: "hdb_catalog.hdb_scheduled_events", invocations: "hdb_catalog.hdb_scheduled_event_invocation_logs" },
} as const;

/** A timestamptz as Hasura's JSON writes a UTCTime: ISO 8601 in UTC, `Z`, fractional seconds only when there are. */
export const utcJson = (column: string) => `((to_json(${column} AT TIME ZONE 'UTC') #>> '{}') || 'Z')`;

export interface ScheduledEvent {
  kind: ScheduledKind;
  id: string;
  /** The cron trigger's (cron events only). */
  trigger_name: string | null;
  scheduled_time: string;
  created_at: string;
  tries: number;
  /** How long after its scheduled time the event was taken, in milliseconds. */
  late_ms: number;
  /** One-off events carry their own configuration. */
  webhook_conf?: unknown;
  payload?: unknown;
  header_conf?: unknown;
  retry_conf?: unknown;
  comment?: string | null;
  request_transform?: unknown;
  response_transform?: unknown;
}

const ONE_OFF_COLUMNS = ", webhook_conf, payload, header_conf, retry_conf, comment, request_transform, response_transform";

async function takeFrom(db: Queryable, kind: ScheduledKind, limit: number, leaseMs: number, triggers: readonly string[]) {
  const { events } = SCHEDULED_TABLES[kind];
  const forTriggers = kind === "cron" ? "AND e.trigger_name = ANY($3::text[])" : "";
  const { rows } = await db.query<ScheduledEvent>({
    text: `UPDATE ${events} SET status = 'locked', locked_at = now()
      WHERE id IN (
        SELECT e.id FROM ${events} e
        WHERE ((e.status = 'scheduled' AND ((e.next_retry_at IS NULL AND e.scheduled_time <= now()) OR e.next_retry_at <= now()))
            OR (e.status = 'locked' AND (e.locked_at IS NULL OR e.locked_at < now() - $2 * interval '1 millisecond')))
          ${forTriggers}
        ORDER BY e.scheduled_time
        LIMIT $1
        FOR UPDATE SKIP LOCKED)
      RETURNING '${kind}' AS kind, id, ${kind === "cron" ? "trigger_name" : "NULL::text AS trigger_name"}, tries,
        ${utcJson("scheduled_time")} AS scheduled_time, ${utcJson("created_at")} AS created_at,
        (extract(epoch from now() - scheduled_time) * 1000)::float8 AS late_ms
        ${kind === "one_off" ? ONE_OFF_COLUMNS : ""}`,
    values: kind === "cron" ? [limit, leaseMs, triggers] : [limit, leaseMs],
  });
  return rows.map((r) => ({ ...r, late_ms: Number(r.late_ms) }));
}

/** Takes up to `limit` due events, cron runs (of the named triggers) first, and leases them. */
export async function takeScheduled(
  db: Database,
  cronTriggers: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ScheduledEvent[]> {
  const cron = cronTriggers.length > 0 ? await takeFrom(db, "cron", limit, leaseMs, cronTriggers) : [];
  const left = limit - cron.length;
  return left > 0 ? [...cron, ...(await takeFrom(db, "one_off", left, leaseMs, []))] : cron;
}

function byKind(events: readonly ScheduledEvent[]): Array<[ScheduledKind, string[]]> {
  return (["cron", "one_off"] as const)
    .map((kind): [ScheduledKind, string[]] => [kind, events.filter((e) => e.kind === kind).map((e) => e.id)])
    .filter(([, ids]) => ids.length > 0);
}

/** Renews the leases of events still held; rows being recorded meanwhile are skipped, not waited for (no deadlock). */
export async function renewScheduled(db: Database, events: readonly ScheduledEvent[]): Promise<void> {
  for (const [kind, ids] of byKind(events)) {
    const table = SCHEDULED_TABLES[kind].events;
    await db.query({
      text: `UPDATE ${table} SET locked_at = now()
        WHERE id IN (SELECT id FROM ${table} WHERE id = ANY($1::text[]) AND status = 'locked' FOR UPDATE SKIP LOCKED)`,
      values: [ids],
    });
  }
}

/** Gives events back (graceful shutdown, or a trigger gone): another instance may take them at once. */
export async function releaseScheduled(db: Database, events: readonly ScheduledEvent[]): Promise<void> {
  for (const [kind, ids] of byKind(events))
    await db.query({
      text: `UPDATE ${SCHEDULED_TABLES[kind].events} SET status = 'scheduled', locked_at = NULL WHERE id = ANY($1::text[]) AND status = 'locked'`,
      values: [ids],
    });
}

export type ScheduledOutcome = { kind: "delivered" } | { kind: "retry"; afterMs: number } | { kind: "error" } | { kind: "dead" };

export interface ScheduledRecord {
  event: ScheduledEvent;
  /** None for a dead event (it was not attempted). */
  invocation?: Invocation;
  outcome: ScheduledOutcome;
}

/** Records attempts and their events' new states, in one transaction. */
export async function recordScheduled(db: Database, records: readonly ScheduledRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.transaction(async (tx) => {
    for (const kind of ["cron", "one_off"] as const) {
      const mine = records.filter((r) => r.event.kind === kind);
      if (mine.length === 0) continue;
      const attempted = mine.filter((r) => r.invocation !== undefined);
      if (attempted.length > 0)
        await tx.query({
          text: `INSERT INTO ${SCHEDULED_TABLES[kind].invocations} (event_id, status, request, response)
            SELECT o.id, o.status, o.request, o.response
            FROM json_to_recordset($1::json) AS o(id text, status int, request json, response json)`,
          values: [JSON.stringify(attempted.map((r) => ({ id: r.event.id, ...r.invocation })))],
        });
      const states = mine.map((r) => ({
        id: r.event.id,
        kind: r.outcome.kind,
        after_ms: r.outcome.kind === "retry" ? r.outcome.afterMs : null,
      }));
      await tx.query({
        text: `UPDATE ${SCHEDULED_TABLES[kind].events} e SET
            status = CASE WHEN o.kind = 'retry' THEN 'scheduled' ELSE o.kind END,
            tries = e.tries + CASE WHEN o.kind = 'dead' THEN 0 ELSE 1 END,
            next_retry_at = CASE WHEN o.kind = 'retry' THEN now() + o.after_ms * interval '1 millisecond' ELSE e.next_retry_at END,
            locked_at = NULL
          FROM json_to_recordset($1::json) AS o(id text, kind text, after_ms bigint)
          WHERE e.id = o.id`,
        values: [JSON.stringify(states)],
      });
    }
  });
}

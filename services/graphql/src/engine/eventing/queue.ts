/**
 * `hdb_catalog.event_log` as a work queue shared by every engine instance (Hasura's fetchEvents,
 * setSuccessTx, setRetryTx, setErrorTx, insertInvocation and unlockEventsTx in
 * server/src-lib/Hasura/Backends/Postgres/DDL/EventTrigger.hs), with one difference: `locked` is
 * a lease. An instance takes events with FOR UPDATE SKIP LOCKED and renews `locked` while it
 * delivers them; another instance may take an event only once its lease is older than
 * `leaseMs` (Hasura waits 30 minutes, and never renews: a slow delivery can be taken over).
 * Each attempt's invocation log is written in the transaction that records the event's state.
 */
import type { Database } from "@platform/core";
import type { Invocation, Outcome } from "./webhook.js";

export interface QueuedEvent {
  id: string;
  schema_name: string;
  table_name: string;
  trigger_name: string;
  payload: { op: string; data: unknown; session_variables: unknown; trace_context?: unknown };
  tries: number;
  created_at: string;
}

/** Takes up to `limit` events of the named triggers that are due and not leased. */
export async function takeEvents(db: Database, triggers: readonly string[], limit: number, leaseMs: number): Promise<QueuedEvent[]> {
  if (limit <= 0 || triggers.length === 0) return [];
  const { rows } = await db.query<QueuedEvent>({
    text: `UPDATE hdb_catalog.event_log SET locked = now()
      WHERE id IN (
        SELECT l.id FROM hdb_catalog.event_log l
        WHERE l.delivered = false AND l.error = false AND l.archived = false
          AND (l.locked IS NULL OR l.locked < now() - $3 * interval '1 millisecond')
          AND (l.next_retry_at IS NULL OR l.next_retry_at <= now()::timestamp)
          AND l.trigger_name = ANY($1::text[])
        ORDER BY l.locked NULLS FIRST, l.next_retry_at NULLS FIRST, l.created_at
        LIMIT $2
        FOR UPDATE SKIP LOCKED)
      RETURNING id, schema_name, table_name, trigger_name, payload, tries,
        to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at`,
    values: [triggers, limit, leaseMs],
  });
  return rows;
}

/**
 * Renews the lease of events still held (not yet recorded). Rows being recorded meanwhile are
 * skipped, not waited for: a renewal waiting on a recording that waits on it would deadlock.
 */
export async function renewLeases(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query({
    text: `UPDATE hdb_catalog.event_log SET locked = now()
      WHERE id IN (SELECT id FROM hdb_catalog.event_log
        WHERE id = ANY($1::text[]) AND locked IS NOT NULL AND NOT delivered AND NOT error
        FOR UPDATE SKIP LOCKED)`,
    values: [ids],
  });
}

/** Gives events back (graceful shutdown): another instance may take them at once. */
export async function releaseEvents(db: Database, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await db.query({
    text: "UPDATE hdb_catalog.event_log SET locked = NULL WHERE id = ANY($1::text[]) AND locked IS NOT NULL",
    values: [ids],
  });
  return rowCount ?? 0;
}

export interface Recorded {
  event: QueuedEvent;
  /** Absent when nothing was sent (a request transform failed): no invocation is logged. */
  invocation?: Invocation | undefined;
  outcome: Outcome;
}

/**
 * Records attempts and their events' new states, in one transaction of two statements however
 * many there are (the whole batch travels as one JSON parameter).
 */
export async function recordAttempts(db: Database, attempts: readonly Recorded[]): Promise<void> {
  if (attempts.length === 0) return;
  const rows = JSON.stringify(
    attempts.map(({ event, invocation, outcome }) => ({
      id: event.id,
      trigger_name: event.trigger_name,
      logged: invocation !== undefined,
      status: invocation?.status ?? null,
      request: invocation?.request ?? null,
      response: invocation?.response ?? null,
      kind: outcome.kind,
      after_ms: outcome.kind === "retry" ? outcome.afterMs : null,
    })),
  );
  await db.transaction(async (tx) => {
    await tx.query({
      text: `INSERT INTO hdb_catalog.event_invocation_logs (trigger_name, event_id, status, request, response)
        SELECT o.trigger_name, o.id, o.status, o.request, o.response
        FROM json_to_recordset($1::json) AS o(id text, trigger_name text, logged boolean, status int, request json, response json)
        WHERE o.logged`,
      values: [rows],
    });
    await tx.query({
      text: `UPDATE hdb_catalog.event_log e SET tries = e.tries + 1, locked = NULL,
          delivered = (o.kind = 'delivered'), error = (o.kind = 'error'),
          next_retry_at = CASE WHEN o.kind = 'retry' THEN now()::timestamp + o.after_ms * interval '1 millisecond' END
        FROM json_to_recordset($1::json) AS o(id text, kind text, after_ms bigint)
        WHERE e.id = o.id`,
      values: [rows],
    });
  });
}

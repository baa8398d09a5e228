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

/** Renews the lease of events still held (not yet recorded). */
export async function renewLeases(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query({
    text: "UPDATE hdb_catalog.event_log SET locked = now() WHERE id = ANY($1::text[]) AND locked IS NOT NULL AND NOT delivered AND NOT error",
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

export interface Invocation {
  status: number | null;
  request: unknown;
  response: unknown;
}

export type Outcome = { kind: "delivered" } | { kind: "retry"; afterMs: number } | { kind: "error" };

/** Records an attempt and the event's new state in one transaction. */
export async function recordAttempt(db: Database, event: QueuedEvent, invocation: Invocation, outcome: Outcome): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query({
      text: `INSERT INTO hdb_catalog.event_invocation_logs (trigger_name, event_id, status, request, response)
        VALUES ($1, $2, $3, $4::json, $5::json)`,
      values: [event.trigger_name, event.id, invocation.status, JSON.stringify(invocation.request), JSON.stringify(invocation.response)],
    });
    const state =
      outcome.kind === "delivered"
        ? "delivered = true, next_retry_at = NULL"
        : outcome.kind === "error"
          ? "error = true, next_retry_at = NULL"
          : "next_retry_at = now()::timestamp + $2 * interval '1 millisecond'";
    await tx.query({
      text: `UPDATE hdb_catalog.event_log SET tries = tries + 1, locked = NULL, ${state} WHERE id = $1`,
      values: outcome.kind === "retry" ? [event.id, outcome.afterMs] : [event.id],
    });
  });
}

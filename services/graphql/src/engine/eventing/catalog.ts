/**
 * The tables and the capture function of event triggers, as Hasura creates them in a source
 * (server/src-rsr/init_pg_source.sql in hasura/graphql-engine): `hdb_catalog.event_log` with its
 * fetch index, `hdb_catalog.event_invocation_logs`, `hdb_catalog.hdb_event_log_cleanups`, and
 * `hdb_catalog.insert_event_log(schema, table, trigger, op, row_data)`, which the row triggers
 * call in the writing transaction: it records the operation, the row data and the session
 * variables of the transaction (`hasura.user`, set by mutations). Created when the first event
 * trigger is served (`ensureEventCatalog`; a database Hasura prepared keeps its events), dropped
 * by clear_metadata (`dropEventCatalog`), as Hasura creates and drops a source's event catalog.
 */
import { type Database, type Queryable, sql } from "@platform/core";

/** Serialises creating and dropping the catalog between instances. */
const CATALOG_LOCK = 0x68646576 + 1;

/** Whether the event log exists (one cheap lookup, no lock). */
export async function hasEventCatalog(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(sql`SELECT to_regclass('hdb_catalog.event_log') IS NOT NULL AS present`);
  return rows[0]?.present === true;
}

/** Creates the event catalog if it is missing. */
export async function ensureEventCatalog(db: Database): Promise<void> {
  if (await hasEventCatalog(db)) return;
  await db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${CATALOG_LOCK})`);
    await initEventCatalog(tx);
  });
}

/** Drops the event catalog: the events, their invocation logs and cleanups, and the capture functions. */
export async function dropEventCatalog(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${CATALOG_LOCK})`);
    const { rows } = await tx.query<{ fn: string }>(
      sql`SELECT p.proname AS fn FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'hdb_catalog' AND p.proname LIKE 'notify\_hasura\_%'`,
    );
    for (const { fn } of rows) await tx.exec(`DROP FUNCTION IF EXISTS hdb_catalog."${fn.replaceAll('"', '""')}"() CASCADE`);
    await tx.exec(`DROP TABLE IF EXISTS hdb_catalog.event_invocation_logs, hdb_catalog.event_log, hdb_catalog.hdb_event_log_cleanups;
      DROP FUNCTION IF EXISTS hdb_catalog.insert_event_log(text, text, text, text, json);`);
  });
}

async function initEventCatalog(tx: Queryable): Promise<void> {
  await tx.exec(`
    CREATE TABLE IF NOT EXISTS hdb_catalog.event_log (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      schema_name text NOT NULL,
      table_name text NOT NULL,
      trigger_name text NOT NULL,
      payload jsonb NOT NULL,
      delivered boolean NOT NULL DEFAULT false,
      error boolean NOT NULL DEFAULT false,
      tries integer NOT NULL DEFAULT 0,
      created_at timestamp DEFAULT now(),
      locked timestamptz,
      next_retry_at timestamp,
      archived boolean NOT NULL DEFAULT false
    );
    CREATE INDEX IF NOT EXISTS event_log_trigger_name_idx ON hdb_catalog.event_log (trigger_name);
    CREATE INDEX IF NOT EXISTS event_log_fetch_events ON hdb_catalog.event_log (locked NULLS FIRST, next_retry_at NULLS FIRST, created_at)
      WHERE delivered = false AND error = false AND archived = false;
    CREATE TABLE IF NOT EXISTS hdb_catalog.event_invocation_logs (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      trigger_name text,
      event_id text,
      status integer,
      request json,
      response json,
      created_at timestamp DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS event_invocation_logs_event_id_idx ON hdb_catalog.event_invocation_logs (event_id);
    CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_event_log_cleanups (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      trigger_name text NOT NULL,
      scheduled_at timestamp NOT NULL,
      deleted_event_logs integer,
      deleted_event_invocation_logs integer,
      status text NOT NULL CHECK (status IN ('scheduled', 'paused', 'completed', 'dead')),
      UNIQUE (trigger_name, scheduled_at)
    );
  `);
  await tx.query(sql`
    CREATE OR REPLACE FUNCTION hdb_catalog.insert_event_log(schema_name text, table_name text, trigger_name text, op text, row_data json)
    RETURNS text LANGUAGE plpgsql AS $fn$
    DECLARE
      event_id text := gen_random_uuid()::text;
    BEGIN
      INSERT INTO hdb_catalog.event_log (id, schema_name, table_name, trigger_name, payload)
      VALUES (event_id, schema_name, table_name, trigger_name, json_build_object(
        'op', op,
        'data', row_data,
        'session_variables', nullif(current_setting('hasura.user', true), '')::json,
        'trace_context', nullif(current_setting('hasura.tracecontext', true), '')::json
      ));
      RETURN event_id;
    END;
    $fn$`);
}

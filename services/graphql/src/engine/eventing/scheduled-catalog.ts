/**
 * The tables of scheduled triggers, with the columns Hasura gives them in its metadata database
 * (https://hasura.io/docs/latest/scheduled-triggers/): `hdb_catalog.hdb_cron_events` (the runs of
 * cron triggers, materialised ahead of time) and `hdb_catalog.hdb_scheduled_events` (one-off
 * events, each with its own webhook, headers and retry settings), each with its invocation logs.
 * Statuses go scheduled → locked → delivered | error | dead.
 *
 * Three columns are ours, created if missing so that a database Hasura prepared keeps its events:
 * `locked_at`, the start of the lease of a `locked` row (renewed while its delivery runs), so
 * that another instance takes over a dead instance's rows once the lease is over (a row Hasura
 * left `locked` has none and is taken at once); and a one-off event's `request_transform` and
 * `response_transform`, which create_scheduled_event accepts and Hasura's table has no column for.
 */
import type { Queryable } from "@platform/core";

const STATUS_CHECK = "CHECK (status IN ('scheduled', 'locked', 'delivered', 'error', 'dead'))";

/** The invocation log of the events of `events`, as Hasura makes both. */
const invocationLog = (table: string, events: string) => `
    CREATE TABLE IF NOT EXISTS hdb_catalog.${table} (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      event_id text REFERENCES hdb_catalog.${events} (id) ON UPDATE CASCADE ON DELETE CASCADE,
      status integer,
      request json,
      response json,
      created_at timestamptz DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS ${table}_event_id ON hdb_catalog.${table} (event_id);`;

export async function initScheduledCatalog(tx: Queryable): Promise<void> {
  await tx.exec(`
    CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_cron_events (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      trigger_name text NOT NULL,
      scheduled_time timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'scheduled' ${STATUS_CHECK},
      tries integer NOT NULL DEFAULT 0,
      created_at timestamptz DEFAULT now(),
      next_retry_at timestamptz
    );
    ALTER TABLE hdb_catalog.hdb_cron_events ADD COLUMN IF NOT EXISTS locked_at timestamptz;
    CREATE UNIQUE INDEX IF NOT EXISTS hdb_cron_events_unique_scheduled ON hdb_catalog.hdb_cron_events (trigger_name, scheduled_time)
      WHERE status = 'scheduled';
    CREATE INDEX IF NOT EXISTS hdb_cron_event_status ON hdb_catalog.hdb_cron_events (status);
    CREATE INDEX IF NOT EXISTS hdb_cron_events_due ON hdb_catalog.hdb_cron_events (scheduled_time)
      WHERE status IN ('scheduled', 'locked');
    ${invocationLog("hdb_cron_event_invocation_logs", "hdb_cron_events")}
    CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_scheduled_events (
      id text DEFAULT gen_random_uuid() PRIMARY KEY,
      webhook_conf json NOT NULL,
      scheduled_time timestamptz NOT NULL,
      retry_conf json,
      payload json,
      header_conf json,
      status text NOT NULL DEFAULT 'scheduled' ${STATUS_CHECK},
      tries integer NOT NULL DEFAULT 0,
      created_at timestamptz DEFAULT now(),
      next_retry_at timestamptz,
      comment text
    );
    ALTER TABLE hdb_catalog.hdb_scheduled_events ADD COLUMN IF NOT EXISTS locked_at timestamptz;
    ALTER TABLE hdb_catalog.hdb_scheduled_events ADD COLUMN IF NOT EXISTS request_transform json;
    ALTER TABLE hdb_catalog.hdb_scheduled_events ADD COLUMN IF NOT EXISTS response_transform json;
    CREATE INDEX IF NOT EXISTS hdb_scheduled_event_status ON hdb_catalog.hdb_scheduled_events (status);
    CREATE INDEX IF NOT EXISTS hdb_scheduled_events_due ON hdb_catalog.hdb_scheduled_events (scheduled_time)
      WHERE status IN ('scheduled', 'locked');
    ${invocationLog("hdb_scheduled_event_invocation_logs", "hdb_scheduled_events")}
  `);
}

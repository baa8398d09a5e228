/**
 * Cleanup of processed events (https://hasura.io/docs/latest/event-triggers/clean-up/auto-cleanup/,
 * an enterprise feature of Hasura, free here): a trigger's `cleanup_config` deletes its delivered
 * and failed events older than `clear_older_than` hours, `batch_size` at a time, each batch within
 * `timeout` seconds (a batch that runs out stops the run), and with `clean_invocation_logs` their
 * invocation logs too, on its cron `schedule` (UTC). `pg_trigger_event_trigger_cleanup` runs one
 * at once.
 *
 * Runs are rows of `hdb_catalog.hdb_event_log_cleanups`, as in Hasura: every instance makes sure
 * the next run of each trigger is scheduled (`ON CONFLICT DO NOTHING` on the trigger and time), and
 * a due run is claimed by one instance (FOR UPDATE SKIP LOCKED), which records what it deleted.
 */
import type { Database } from "@platform/core";
import { Cron } from "croner";
import type { CleanupConfig, EventTrigger } from "./triggers.js";

/** How often due runs are looked for. */
const TICK_MS = 60_000;

export interface CleanupResult {
  deleted_event_logs: number;
  deleted_event_invocation_logs: number;
}

/** Deletes the trigger's processed events older than the config says, batch by batch. */
export async function cleanEvents(
  db: Database,
  trigger: string,
  config: Omit<CleanupConfig, "schedule" | "paused">,
): Promise<CleanupResult> {
  const result: CleanupResult = { deleted_event_logs: 0, deleted_event_invocation_logs: 0 };
  for (;;) {
    const signal = AbortSignal.timeout(config.timeoutSec * 1000);
    const { rows } = await db.transaction(
      async (tx) => {
        const deleted = await tx.query<{ id: string }>(
          {
            text: `DELETE FROM hdb_catalog.event_log WHERE id IN (
                SELECT id FROM hdb_catalog.event_log
                WHERE trigger_name = $1 AND (delivered OR error) AND created_at < now()::timestamp - $2 * interval '1 hour'
                LIMIT $3)
              RETURNING id`,
            values: [trigger, config.clearOlderThanHours, config.batchSize],
          },
          { signal },
        );
        if (config.cleanInvocationLogs && deleted.rows.length > 0) {
          const logs = await tx.query(
            {
              text: "DELETE FROM hdb_catalog.event_invocation_logs WHERE event_id = ANY($1::text[])",
              values: [deleted.rows.map((r) => r.id)],
            },
            { signal },
          );
          result.deleted_event_invocation_logs += logs.rowCount ?? 0;
        }
        return deleted;
      },
      { signal },
    );
    result.deleted_event_logs += rows.length;
    if (rows.length < config.batchSize) return result;
  }
}

interface Logger {
  warn(details: object, message: string): void;
}

/** Schedules and runs the cleanups of the triggers with a `cleanup_config`, on one instance each. */
export class CleanupScheduler {
  private triggers: EventTrigger[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly db: Database,
    private readonly logger?: Logger,
  ) {}

  setTriggers(triggers: Iterable<EventTrigger>): void {
    this.triggers = [...triggers].filter((t) => t.cleanup && !t.cleanup.paused);
    // A trigger whose cleanup_config is new gets its next run scheduled now.
    if (this.timer) void this.tick();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.again = false;
    await this.running;
  }

  /** Schedules each trigger's next run, then runs those due (once more after a look in progress). */
  tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runDue().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    });
    return this.running;
  }

  private async runDue(): Promise<void> {
    try {
      for (const trigger of this.triggers) {
        const next = new Cron(trigger.cleanup?.schedule as string, { timezone: "UTC", paused: true }).nextRun();
        if (!next) continue;
        await this.db.query({
          text: `INSERT INTO hdb_catalog.hdb_event_log_cleanups (trigger_name, scheduled_at, status)
            VALUES ($1, $2::timestamptz AT TIME ZONE 'UTC', 'scheduled') ON CONFLICT (trigger_name, scheduled_at) DO NOTHING`,
          values: [trigger.name, next.toISOString()],
        });
      }
      for (;;) {
        const { rows } = await this.db.query<{ id: string; trigger_name: string }>({
          text: `UPDATE hdb_catalog.hdb_event_log_cleanups SET status = 'completed'
            WHERE id = (SELECT id FROM hdb_catalog.hdb_event_log_cleanups
              WHERE status = 'scheduled' AND scheduled_at <= (now() AT TIME ZONE 'UTC') AND trigger_name = ANY($1::text[])
              ORDER BY scheduled_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, trigger_name`,
          values: [this.triggers.map((t) => t.name)],
        });
        const run = rows[0];
        if (!run) return;
        const config = this.triggers.find((t) => t.name === run.trigger_name)?.cleanup;
        if (!config) continue;
        const done = await cleanEvents(this.db, run.trigger_name, config).catch((error: unknown) => {
          this.logger?.warn({ err: error, trigger: run.trigger_name }, "an event log cleanup stopped");
          return undefined;
        });
        await this.db.query({
          text: `UPDATE hdb_catalog.hdb_event_log_cleanups SET status = $2, deleted_event_logs = $3, deleted_event_invocation_logs = $4
            WHERE id = $1`,
          values: [run.id, done ? "completed" : "dead", done?.deleted_event_logs ?? null, done?.deleted_event_invocation_logs ?? null],
        });
      }
    } catch (error) {
      this.logger?.warn({ err: error }, "event log cleanups could not be scheduled; trying again in a minute");
    }
  }
}

/**
 * Cron triggers as the engine serves them (https://hasura.io/docs/latest/scheduled-triggers/create-cron-trigger/),
 * and their runs materialised ahead of time in `hdb_catalog.hdb_cron_events`, as Hasura does
 * (its generator keeps the next 100 runs of each trigger; server/src-lib/Hasura/Eventing/ScheduledTrigger.hs).
 * Schedules are standard five-field cron expressions, read in UTC, evaluated by croner.
 *
 * `syncCronEvents` runs on every instance after each metadata change and every minute: in one
 * transaction under an advisory lock, it drops the waiting runs of triggers no longer in metadata,
 * rebuilds those of a trigger whose schedule changed (its waiting future runs are not the
 * schedule's next ones), and tops every trigger up to 100 future runs. Runs are unique per trigger
 * and time while waiting, so instances racing insert each run once.
 */
import type { Database } from "@platform/core";
import { Cron } from "croner";
import { isObject } from "../metadata/args.js";
import type { Metadata } from "../metadata/types.js";
import { topList } from "../metadata/unserved.js";
import { type Transforms, transformsOf } from "../transforms/config.js";
import { type HeaderConf, parseHeaders } from "./webhook.js";

/** How many future runs are kept per trigger. */
export const RUNS_AHEAD = 100;
const SYNC_LOCK = 7_310_001;
/** A timestamptz as milliseconds since the epoch (a float8, read as a number). */
const EPOCH_MS = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;

/** Hasura's RetryConfST and its defaults (defaultSTRetryConf). */
export interface ScheduledRetryConf {
  numRetries: number;
  retryIntervalSec: number;
  timeoutSec: number;
  toleranceSec: number;
}

export const DEFAULT_SCHEDULED_RETRY = { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 };

export interface CronTrigger {
  name: string;
  schedule: string;
  webhook: { url: string };
  payload: unknown;
  headers: HeaderConf[];
  retry: ScheduledRetryConf;
  comment?: string;
  /** Request and response transforms (REST connectors). */
  transforms: Transforms;
}

const number = (value: unknown, fallback: number) => (typeof value === "number" && Number.isFinite(value) ? value : fallback);

/** `retry_conf` with Hasura's defaults for what it leaves out, in Hasura's JSON form. */
export function retryConfJson(value: unknown): typeof DEFAULT_SCHEDULED_RETRY {
  const given = isObject(value) ? value : {};
  return {
    num_retries: number(given.num_retries, DEFAULT_SCHEDULED_RETRY.num_retries),
    retry_interval_seconds: number(given.retry_interval_seconds, DEFAULT_SCHEDULED_RETRY.retry_interval_seconds),
    timeout_seconds: number(given.timeout_seconds, DEFAULT_SCHEDULED_RETRY.timeout_seconds),
    tolerance_seconds: number(given.tolerance_seconds, DEFAULT_SCHEDULED_RETRY.tolerance_seconds),
  };
}

export function parseRetryConf(value: unknown): ScheduledRetryConf {
  const conf = retryConfJson(value);
  return {
    numRetries: conf.num_retries,
    retryIntervalSec: conf.retry_interval_seconds,
    timeoutSec: conf.timeout_seconds,
    toleranceSec: conf.tolerance_seconds,
  };
}

/** Why `schedule` is not a cron expression Hasura accepts (five fields), or null. */
export function scheduleProblem(schedule: string): string | null {
  if (schedule.trim().split(/\s+/).length !== 5) return "a cron expression has exactly five fields";
  try {
    new Cron(schedule, { timezone: "UTC", paused: true });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, "") : "not a cron expression";
  }
}

/** The next `count` run times of `schedule` strictly after `from` (UTC). */
export function nextRuns(schedule: string, from: Date, count: number): Date[] {
  return new Cron(schedule, { timezone: "UTC", paused: true }).nextRuns(count, from);
}

/** The cron triggers of metadata the engine serves (not those with unreadable transforms, nor bad schedules), by name. */
export function cronTriggersOf(metadata: Metadata): Map<string, CronTrigger> {
  const found = new Map<string, CronTrigger>();
  for (const conf of topList(metadata, "cron_triggers")) {
    if (typeof conf.name !== "string" || typeof conf.schedule !== "string") continue;
    const transforms = transformsOf(conf);
    if (scheduleProblem(conf.schedule) !== null || "problem" in transforms) continue;
    found.set(conf.name, {
      name: conf.name,
      schedule: conf.schedule,
      webhook: { url: String(conf.webhook ?? "") },
      payload: conf.payload ?? null,
      headers: parseHeaders(conf.headers),
      retry: parseRetryConf(conf.retry_conf),
      ...(typeof conf.comment === "string" ? { comment: conf.comment } : {}),
      transforms: transforms.transforms,
    });
  }
  return found;
}

const sameTimes = (a: readonly Date[], b: readonly Date[]) => a.length === b.length && a.every((t, i) => t.getTime() === b[i]?.getTime());

/** Materialises the triggers' next runs (see the file's comment). Returns how many runs were added. */
export async function syncCronEvents(db: Database, triggers: Iterable<CronTrigger>): Promise<number> {
  const list = [...triggers];
  return db.transaction(async (tx) => {
    await tx.query({ text: "SELECT pg_advisory_xact_lock($1)", values: [SYNC_LOCK] });
    await tx.query({
      text: "DELETE FROM hdb_catalog.hdb_cron_events WHERE status = 'scheduled' AND NOT (trigger_name = ANY($1::text[]))",
      values: [list.map((t) => t.name)],
    });
    if (list.length === 0) return 0;
    const { rows } = await tx.query<{ now: number; trigger_name: string | null; times: number[] | null }>({
      text: `SELECT n.now, w.trigger_name, w.times FROM (SELECT ${EPOCH_MS("now()")} AS now) n
        LEFT JOIN (SELECT trigger_name, array_agg(${EPOCH_MS("scheduled_time")} ORDER BY scheduled_time) AS times
          FROM hdb_catalog.hdb_cron_events
          WHERE status = 'scheduled' AND scheduled_time > now() AND trigger_name = ANY($1::text[])
          GROUP BY trigger_name) w ON true`,
      values: [list.map((t) => t.name)],
    });
    const now = new Date(Number(rows[0]?.now ?? Date.now()));
    const waiting = new Map(
      rows.filter((r) => r.trigger_name !== null).map((r) => [r.trigger_name as string, (r.times ?? []).map((t) => new Date(Number(t)))]),
    );
    const rebuild: string[] = [];
    const added: Array<{ trigger_name: string; scheduled_time: string }> = [];
    for (const trigger of list) {
      let times = waiting.get(trigger.name) ?? [];
      if (!sameTimes(times, nextRuns(trigger.schedule, now, times.length))) {
        rebuild.push(trigger.name);
        times = [];
      }
      if (times.length >= RUNS_AHEAD) continue;
      const from = times.at(-1) ?? now;
      for (const t of nextRuns(trigger.schedule, from, RUNS_AHEAD - times.length))
        added.push({ trigger_name: trigger.name, scheduled_time: t.toISOString() });
    }
    if (rebuild.length > 0)
      await tx.query({
        text: "DELETE FROM hdb_catalog.hdb_cron_events WHERE status = 'scheduled' AND scheduled_time > now() AND trigger_name = ANY($1::text[])",
        values: [rebuild],
      });
    if (added.length === 0) return 0;
    const inserted = await tx.query({
      text: `INSERT INTO hdb_catalog.hdb_cron_events (trigger_name, scheduled_time)
        SELECT r.trigger_name, r.scheduled_time FROM json_to_recordset($1::json) AS r(trigger_name text, scheduled_time timestamptz)
        ON CONFLICT (trigger_name, scheduled_time) WHERE status = 'scheduled' DO NOTHING`,
      values: [JSON.stringify(added)],
    });
    return inserted.rowCount ?? 0;
  });
}

/**
 * The profile-refresh queue: pg-boss (https://github.com/timgit/pg-boss, v10) over the engine's
 * database, so every backend instance sharing that database shares one queue, and a job survives a
 * restart (MetaGame kept its jobs in an in-process Bottleneck limiter, lost on restart and unseen
 * by other instances).
 */
import { type Database, ident, type Logger, sql } from "@platform/core";
import PgBoss from "pg-boss";
import type { BackendConfig } from "../config.js";
import { bossDatabase } from "./boss-db.js";
import type { ProfileQueue } from "./profile-queue.js";
import { refreshProfile } from "./refresh-profile.js";
import { startRunner } from "./runner.js";

export type { ProfileQueue } from "./profile-queue.js";

export interface QueueDeps {
  config: BackendConfig;
  logger: Logger;
  db: Database;
  fetch: typeof fetch;
}

export const PROFILE_QUEUE = "metagame-profile-refresh";

/** How long an idle instance waits before looking for jobs another instance queued. */
const POLL_MS = 2000;

/** A job that takes longer (or whose instance died) is failed by pg-boss's maintenance and retried. */
const QUEUE_OPTIONS = { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 };

/** A running job gives up before pg-boss would expire it, so it is never retried while it still runs. */
const JOB_TIMEOUT_MS = 240_000;

/**
 * MetaGame's rule: at most one pending refresh per player, pending meaning queued or running.
 * pg-boss's policies cover only part of it (`stately` lets a queued job wait beside a running one),
 * so the queue's partition gets a unique index over jobs not yet finished (pg-boss's job states
 * are an enum ordered created < retry < active < completed < ...); pg-boss inserts jobs with
 * `ON CONFLICT DO NOTHING`, so a second send for a pending player inserts nothing and answers null.
 */
async function ensurePendingRule(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    // Instances starting together would race on CREATE INDEX IF NOT EXISTS.
    await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${`${PROFILE_QUEUE}.pending`}))`);
    const { rows } = await tx.query<{ partition_name: string }>(sql`SELECT partition_name FROM pgboss.queue WHERE name = ${PROFILE_QUEUE}`);
    const partition = rows[0]?.partition_name;
    if (!partition) throw new Error(`pg-boss did not create the queue ${PROFILE_QUEUE}`);
    await tx.query(
      sql`CREATE UNIQUE INDEX IF NOT EXISTS ${ident("metagame_profile_refresh_pending")}
          ON ${ident("pgboss", partition)} (singleton_key) WHERE state < 'completed'`,
    );
  });
}

export async function createProfileQueue(deps: QueueDeps): Promise<ProfileQueue> {
  const { config, logger } = deps;
  const log = logger.child({ component: "profile-queue" });
  const db = bossDatabase(deps.db);
  // No cron schedules (the engine's cron trigger calls updateExpiredIDXProfiles); maintenance
  // stays on, as it is what retries the jobs of an instance that died mid-job.
  const boss = new PgBoss({ db, schedule: false, supervise: true, migrate: true });
  boss.on("error", (error) => log.error({ err: error }, "pg-boss reported an error"));
  try {
    await boss.start();
    await boss.createQueue(PROFILE_QUEUE, { name: PROFILE_QUEUE, policy: "standard", ...QUEUE_OPTIONS });
    await ensurePendingRule(deps.db);
  } catch (error) {
    // The start-up failure is what the caller sees; a failure to stop after it is only logged.
    await boss
      .stop({ graceful: false })
      .catch((stopError: unknown) => log.warn({ err: stopError }, "pg-boss did not stop cleanly after a failed start"));
    await db.drain();
    throw error;
  }
  const runner = startRunner({
    boss,
    queue: PROFILE_QUEUE,
    concurrency: config.queueConcurrency,
    pollMs: POLL_MS,
    timeoutMs: JOB_TIMEOUT_MS,
    logger: log,
    run: (data, signal) => refreshProfile({ config, logger: log, fetch: deps.fetch }, data, signal),
  });
  let closed: Promise<void> | undefined;
  return {
    async enqueue(playerId) {
      const id = await boss.send(PROFILE_QUEUE, { playerId }, { singletonKey: playerId });
      if (id === null) return false;
      runner.wake();
      return true;
    },
    close() {
      closed ??= (async () => {
        await runner.stop();
        await boss.stop({ graceful: true, wait: true, timeout: 1000 });
        await db.drain();
      })();
      return closed;
    },
  };
}

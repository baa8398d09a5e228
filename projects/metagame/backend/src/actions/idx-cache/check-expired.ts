/**
 * `updateExpiredIDXProfiles`, also the daily cron trigger's target (MetaGame's packages/backend/src/
 * handlers/actions/idxCache/updateExpiredProfiles/handler.ts): queues a refresh of every profile
 * last checked more than four days ago (or never), `?invalidate_after_days=N` choosing another
 * age, and answers the ids of the players actually queued (not those already pending).
 */
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";

const INVALIDATE_AFTER_DAYS = 4;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Enqueues at a time: enough to keep a few thousand profiles quick, few enough to leave the pool to others. */
const PARALLEL = 8;

export const checkExpiredQuery = {
  querystring: {
    type: "object",
    properties: { invalidate_after_days: { type: "string" } },
  },
};

const EXPIRED = `query ExpiredProfiles($before: timestamptz!) {
  profile(where: {_or: [{lastCheckedAt: {_lt: $before}}, {lastCheckedAt: {_is_null: true}}]}) { playerId }
}`;

export function expiryDays(raw: string | undefined): number {
  if (raw === undefined) return INVALIDATE_AFTER_DAYS;
  if (!/^\d{1,6}$/.test(raw)) throw errors.badRequest(`invalidate_after_days must be a whole number of days, got "${raw}"`);
  return Number(raw);
}

export async function queueExpiredProfiles(deps: BackendDeps, days: number) {
  const before = new Date(Date.now() - days * DAY_MS).toISOString();
  const { profile } = await deps.engine.request<{ profile: Array<{ playerId: string }> }>(EXPIRED, { before });
  const ids: string[] = [];
  for (let i = 0; i < profile.length; i += PARALLEL) {
    const batch = profile.slice(i, i + PARALLEL);
    const queued = await Promise.all(batch.map(({ playerId }) => deps.profileQueue.enqueue(playerId)));
    batch.forEach(({ playerId }, j) => {
      if (queued[j]) ids.push(playerId);
    });
  }
  return { ids };
}

/**
 * The profile-cache actions through the engine: `updateIDXProfile` (asynchronous: the mutation
 * answers an id, the query field of the same name shows the output once the engine has delivered
 * the call), its refusals recorded as the call's errors, and `updateExpiredIDXProfiles`. No
 * profile source is configured here, so a refresh only stamps `last_checked_at`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, eventually, postAction } from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

let platform: TestPlatform;

beforeAll(async () => {
  // No event delivery: a new player's cacheIDXProfile event would queue its refresh before the tests ask.
  platform = await startPlatform({
    engineEnv: { HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL: "200", HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0" },
  });
});
afterAll(() => platform?.close());

const QUEUE = `mutation ($id: uuid) { updateIDXProfile(playerId: $id) }`;
const RESULT = `query ($id: uuid!) { updateIDXProfile(id: $id) { id errors output { success queued error } } }`;
type Result = {
  updateIDXProfile: { id: string; errors: unknown; output: { success: boolean; queued: boolean; error: string | null } | null } | null;
};

const OLD = "2020-01-01T00:00:00+00:00";
/** The body of the admin-only action updateExpiredIDXProfiles as the engine posts it. */
const ADMIN_ACTION = { action: { name: "updateExpiredIDXProfiles" }, input: {}, session_variables: { "x-hasura-role": "admin" } };

async function lastCheckedAt(playerId: string): Promise<string | null> {
  const answer = await platform.admin<{ profile: Array<{ lastCheckedAt: string | null }> }>(
    `query ($id: uuid!) { profile(where: {playerId: {_eq: $id}}) { lastCheckedAt } }`,
    { id: playerId },
  );
  return answer.data?.profile[0]?.lastCheckedAt ?? null;
}

/** The async call's entry once the engine has recorded the handler's answer. */
async function delivered(callerId: string, actionId: string) {
  return eventually(
    async () => {
      const answer = await platform.asPlayer<Result>(callerId, RESULT, { id: actionId });
      const entry = answer.data?.updateIDXProfile;
      return entry && (entry.output || entry.errors) ? entry : undefined;
    },
    15_000,
    "the async action's result",
  );
}

describe("updateIDXProfile", () => {
  it("answers an action id at once, and queued: true once delivered; the refresh stamps last_checked_at", async () => {
    const player = await createPlayer(platform.admin, { lastCheckedAt: OLD });
    const answer = await platform.asPlayer<{ updateIDXProfile: string }>(player.id, QUEUE, { id: player.id });
    expect(answer.errors).toBeUndefined();
    const actionId = answer.data?.updateIDXProfile as string;
    expect(actionId).toMatch(/^[0-9a-f-]{36}$/);
    const entry = await delivered(player.id, actionId);
    expect(entry).toEqual({ id: actionId, errors: null, output: { success: true, queued: true, error: null } });
    const stamped = await eventually(async () => {
      const at = await lastCheckedAt(player.id);
      return at && Date.parse(at) > Date.parse(OLD) ? at : undefined;
    });
    expect(Date.now() - Date.parse(stamped)).toBeLessThan(60_000);
  });

  it("records a missing player id as the call's error", async () => {
    const player = await createPlayer(platform.admin);
    const answer = await platform.asPlayer<{ updateIDXProfile: string }>(player.id, QUEUE, {});
    const entry = await delivered(player.id, answer.data?.updateIDXProfile as string);
    expect(entry.output).toBeNull();
    expect(entry.errors).toMatchObject({ error: "Player Id not specified in updateSingleProfile handler." });
  });

  it("refuses roles other than admin, player and public in the backend's error shape", async () => {
    const response = await postAction(platform.backend.url, "/idxCache/updateSingle", {
      action: { name: "updateIDXProfile" },
      input: { playerId: "00000000-0000-4000-8000-000000000001" },
      session_variables: { "x-hasura-role": "guest" },
    });
    expect(response).toEqual({
      status: 400,
      body: { message: 'Expected Role: admin, player, or public. Got "guest".', extensions: { code: "action-refused" } },
    });
    const noRole = await postAction(platform.backend.url, "/idxCache/updateSingle", { input: {}, session_variables: {} });
    expect(noRole.body).toMatchObject({ message: 'Expected Role: admin, player, or public. Got "undefined".' });
    const malformed = await postAction(platform.backend.url, "/idxCache/updateSingle", { input: "x" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ extensions: { code: "FST_ERR_VALIDATION" } });
  });
});

describe("updateExpiredIDXProfiles", () => {
  it("queues the profiles not checked for four days (or never) and answers their ids", async () => {
    const stale = await createPlayer(platform.admin, { lastCheckedAt: OLD });
    const never = await createPlayer(platform.admin, { lastCheckedAt: null });
    const fresh = await createPlayer(platform.admin, { lastCheckedAt: new Date(Date.now() - 3 * 86_400_000).toISOString() });
    const answer = await platform.admin<{ updateExpiredIDXProfiles: { ids: string[] } }>(`mutation { updateExpiredIDXProfiles { ids } }`);
    expect(answer.errors).toBeUndefined();
    const ids = answer.data?.updateExpiredIDXProfiles.ids ?? [];
    expect(ids).toContain(stale.id);
    expect(ids).toContain(never.id);
    expect(ids).not.toContain(fresh.id);

    // Refreshed, they are no longer expired; a shorter age (the cron's query parameter) takes the fresh one.
    for (const p of [stale, never])
      await eventually(async () => {
        const at = await lastCheckedAt(p.id);
        return at && Date.parse(at) > Date.parse(OLD) ? at : undefined;
      });
    const again = await postAction(platform.backend.url, "/idxCache/checkExpired?invalidate_after_days=2", ADMIN_ACTION);
    expect(again.status).toBe(200);
    const later = (again.body as { ids: string[] }).ids;
    expect(later).toContain(fresh.id);
    expect(later).not.toContain(stale.id);
    expect(later).not.toContain(never.id);
  });

  it("refuses an invalidate_after_days that is not a whole number", async () => {
    const response = await postAction(platform.backend.url, "/idxCache/checkExpired?invalidate_after_days=soon", ADMIN_ACTION);
    expect(response).toEqual({
      status: 400,
      body: { message: 'invalidate_after_days must be a whole number of days, got "soon"', extensions: { code: "bad-request" } },
    });
  });
});

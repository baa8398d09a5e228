/**
 * The pending rule across instances: two backend + engine instances on one database share one
 * queue, so while a player's refresh is pending (queued or running) in either, asking either for
 * another answers `queued: false`. The profile-source stand-in holds its answers until the test
 * releases them, which keeps jobs running as long as needed.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPlayer,
  eventually,
  type Instance,
  postAction,
  type StandIn,
  startInstance,
  startStandIn,
} from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

/**
 * The engines deliver no events here: a new player's cacheIDXProfile event would queue its
 * refresh itself (triggers-events.test.ts shows it), and these tests decide when refreshes are asked.
 */
const QUIET_TRIGGERS = { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0" };

let platform: TestPlatform;
let second: Instance;
let source: StandIn;
const held: Array<() => void> = [];
const release = () => {
  for (const answer of held.splice(0)) answer();
};

beforeAll(async () => {
  source = await startStandIn(
    (request) => new Promise((resolve) => held.push(() => resolve({ json: { name: `Released ${request.path.slice(1, 9)}` } }))),
  );
  const env = { PROFILE_SOURCE_URL: source.url, METAGAME_QUEUE_CONCURRENCY: "1" };
  platform = await startPlatform({ backendEnv: env, engineEnv: { ...QUIET_TRIGGERS, HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL: "200" } });
  second = await startInstance(platform.scratch.db, env, QUIET_TRIGGERS);
});
afterAll(async () => {
  release();
  await second?.close();
  await platform?.close();
  await source?.close();
});

const QUEUE = `mutation ($id: uuid) { updateIDXProfile(playerId: $id) }`;
const RESULT = `query ($id: uuid!) { updateIDXProfile(id: $id) { output { success queued } errors } }`;

/** updateIDXProfile through an instance's engine, as the player, until the engine has delivered it. */
async function viaEngine(instance: Pick<Instance, "asPlayer">, playerId: string) {
  const call = await instance.asPlayer<{ updateIDXProfile: string }>(playerId, QUEUE, { id: playerId });
  const id = call.data?.updateIDXProfile as string;
  return eventually(async () => {
    const answer = await instance.asPlayer<{ updateIDXProfile: { output: unknown; errors: unknown } | null }>(playerId, RESULT, { id });
    const entry = answer.data?.updateIDXProfile;
    return entry?.output || entry?.errors ? entry : undefined;
  });
}

const viaBackend = async (backendUrl: string, playerId: string) =>
  (
    await postAction(backendUrl, "/idxCache/updateSingle", {
      input: { playerId },
      session_variables: { "x-hasura-role": "public" },
    })
  ).body;

async function states(playerId: string) {
  const { rows } = await platform.scratch.db.query<{ state: string }>(
    sql`SELECT state::text AS state FROM pgboss.job WHERE singleton_key = ${playerId} ORDER BY created_on`,
  );
  return rows.map((r) => r.state);
}

describe("one pending refresh per player across instances", () => {
  it("answers queued: false from either instance while the first instance's job is pending", async () => {
    const player = await createPlayer(platform.admin);
    expect(await viaEngine(platform, player.id)).toEqual({ output: { success: true, queued: true }, errors: null });
    // The job is running: the source has been asked and holds its answer.
    await eventually(async () => (source.requests.some((r) => r.path === `/${player.address}`) ? true : undefined));
    expect(await states(player.id)).toEqual(["active"]);

    expect(await viaBackend(second.backend.url, player.id)).toEqual({ success: true, queued: false });
    expect(await viaBackend(platform.backend.url, player.id)).toEqual({ success: true, queued: false });
    expect(await viaEngine(second, player.id)).toEqual({ output: { success: true, queued: false }, errors: null });
    expect(await states(player.id)).toEqual(["active"]);

    release();
    await eventually(async () => ((await states(player.id)).join() === "completed" ? true : undefined));
    const profile = await platform.admin<{ profile: Array<{ name: string }> }>(
      `query ($id: uuid!) { profile(where: {playerId: {_eq: $id}}) { name } }`,
      { id: player.id },
    );
    expect(profile.data?.profile[0]?.name).toBe(`Released ${player.address.slice(0, 8)}`);
    // Done: a new request queues a new job, from either instance.
    expect(await viaBackend(second.backend.url, player.id)).toEqual({ success: true, queued: true });
    await eventually(async () => (held.length > 0 ? true : undefined));
    release();
    await eventually(async () => ((await states(player.id)).join() === "completed,completed" ? true : undefined));
  });

  it("counts a queued job that no instance has started yet as pending", async () => {
    // Each instance runs one job at a time: two held jobs fill both, so a third player's job waits, queued.
    const [a, b, waiting] = [await createPlayer(platform.admin), await createPlayer(platform.admin), await createPlayer(platform.admin)];
    expect(await viaBackend(platform.backend.url, a.id)).toEqual({ success: true, queued: true });
    expect(await viaBackend(second.backend.url, b.id)).toEqual({ success: true, queued: true });
    await eventually(async () => (held.length === 2 ? true : undefined));
    expect(await viaBackend(platform.backend.url, waiting.id)).toEqual({ success: true, queued: true });
    expect(await states(waiting.id)).toEqual(["created"]);
    expect(await viaBackend(second.backend.url, waiting.id)).toEqual({ success: true, queued: false });
    expect(await viaBackend(platform.backend.url, waiting.id)).toEqual({ success: true, queued: false });
    // Released, the instances finish their jobs and one of them takes the waiting one.
    release();
    await eventually(async () => (held.length === 1 ? true : undefined));
    release();
    await eventually(async () => ((await states(waiting.id)).join() === "completed" ? true : undefined));
  });

  it("hands a running job back when its instance stops, without waiting for it", async () => {
    const third = await startInstance(
      platform.scratch.db,
      { PROFILE_SOURCE_URL: source.url, METAGAME_QUEUE_CONCURRENCY: "1" },
      QUIET_TRIGGERS,
    );
    // The other two instances are kept busy, so the third instance's own job runs there.
    const [busyA, busyB, player] = [
      await createPlayer(platform.admin),
      await createPlayer(platform.admin),
      await createPlayer(platform.admin),
    ];
    await viaBackend(platform.backend.url, busyA.id);
    await viaBackend(second.backend.url, busyB.id);
    await eventually(async () => (held.length === 2 ? true : undefined));
    expect(await viaBackend(third.backend.url, player.id)).toEqual({ success: true, queued: true });
    await eventually(async () => (held.length === 3 ? true : undefined));
    expect(await states(player.id)).toEqual(["active"]);

    const started = Date.now();
    await third.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    // Failed, so any instance retries it; still pending until then.
    expect(await states(player.id)).toEqual(["retry"]);
    const { rows } = await platform.scratch.db.query<{ output: unknown }>(
      sql`SELECT output FROM pgboss.job WHERE singleton_key = ${player.id}`,
    );
    expect(JSON.stringify(rows[0]?.output)).toContain("the backend is shutting down");
    expect(await viaBackend(platform.backend.url, player.id)).toEqual({ success: true, queued: false });
    release();
    await eventually(async () =>
      (await states(busyA.id)).join() === "completed" && (await states(busyB.id)).join() === "completed" ? true : undefined,
    );
  });
});

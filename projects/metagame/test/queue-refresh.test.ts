/**
 * The profile refresh job against a profile-source stand-in: the profile and linked accounts
 * written through the engine, MetaGame's username-clash suffix, an address without a profile, and
 * failures (a refused write, a failing source) that write nothing and leave the job to be retried.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, eventually, postAction, type StandIn, type StandInAnswer, startStandIn } from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

let platform: TestPlatform;
let source: StandIn;
/** The stand-in's answers by address; an address not listed answers 404. */
const profiles = new Map<string, StandInAnswer>();

beforeAll(async () => {
  source = await startStandIn((request) => profiles.get(request.path.slice(1)) ?? { status: 404, json: { error: "no profile" } });
  // No event delivery: a new player's cacheIDXProfile event would start its refresh before the tests ask.
  platform = await startPlatform({
    backendEnv: { PROFILE_SOURCE_URL: `${source.url}/` },
    engineEnv: { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0" },
  });
});
afterAll(async () => {
  await platform?.close();
  await source?.close();
});

async function enqueue(playerId: string): Promise<unknown> {
  const response = await postAction(platform.backend.url, "/idxCache/updateSingle", {
    action: { name: "updateIDXProfile" },
    input: { playerId },
    session_variables: { "x-hasura-role": "admin" },
  });
  return response.body;
}

/** The state of the player's latest job once it is `states`. */
async function jobState(playerId: string, states: string[]) {
  return eventually(
    async () => {
      const { rows } = await platform.scratch.db.query<{ state: string; output: unknown }>(
        sql`SELECT state::text AS state, output FROM pgboss.job WHERE singleton_key = ${playerId} ORDER BY created_on DESC LIMIT 1`,
      );
      return rows[0] && states.includes(rows[0].state) ? rows[0] : undefined;
    },
    15_000,
    `a job in state ${states.join(" or ")}`,
  );
}

async function profileOf(playerId: string) {
  const answer = await platform.admin<{
    player_by_pk: {
      profile: Record<string, unknown> & { lastCheckedAt: string };
      accounts: Array<{ type: string; identifier: string }>;
    };
  }>(
    `query ($id: uuid!) { player_by_pk(id: $id) {
      profile { name description username location countryCode emoji website availableHours colorMask timeZone profileImageURL lastCheckedAt }
      accounts(order_by: {type: asc}) { type identifier }
    } }`,
    { id: playerId },
  );
  return answer.data?.player_by_pk;
}

const OLD = "2020-01-01T00:00:00+00:00";

describe("the profile refresh", () => {
  it("copies the source's profile and accounts onto the player's profile", async () => {
    const player = await createPlayer(platform.admin, { name: "Old name", description: "kept", lastCheckedAt: OLD });
    profiles.set(player.address, {
      json: {
        name: "Alice",
        username: `alice_${player.address.slice(2, 8)}`,
        location: null,
        countryCode: "FR",
        emoji: "🦊",
        website: "https://alice.example",
        availableHours: 20,
        colorMask: 5,
        timeZone: "Europe/Paris",
        profileImageURL: "ipfs://image",
        unknownField: "ignored",
        accounts: [
          { type: "TWITTER", identifier: `alice${player.address.slice(2, 8)}` },
          { type: "GITHUB", identifier: `alice-gh${player.address.slice(2, 8)}` },
        ],
      },
    });
    expect(await enqueue(player.id)).toEqual({ success: true, queued: true });
    await jobState(player.id, ["completed"]);
    const saved = await profileOf(player.id);
    expect(saved?.profile).toMatchObject({
      name: "Alice",
      description: "kept",
      username: `alice_${player.address.slice(2, 8)}`,
      location: null,
      countryCode: "FR",
      emoji: "🦊",
      availableHours: 20,
      colorMask: 5,
      timeZone: "Europe/Paris",
      profileImageURL: "ipfs://image",
    });
    expect(Date.parse(saved?.profile.lastCheckedAt ?? "")).toBeGreaterThan(Date.parse(OLD));
    expect(saved?.accounts).toEqual([
      { type: "GITHUB", identifier: `alice-gh${player.address.slice(2, 8)}` },
      { type: "TWITTER", identifier: `alice${player.address.slice(2, 8)}` },
    ]);
    expect(source.requests.some((r) => r.path === `/${player.address}` && r.headers.accept === "application/json")).toBe(true);
  });

  it("appends the address's last 8 characters to a username another player has (in any case)", async () => {
    const taken = `Taken${Date.now()}`;
    await createPlayer(platform.admin, { username: taken });
    const player = await createPlayer(platform.admin);
    profiles.set(player.address, { json: { username: taken.toLowerCase(), name: "Copycat" } });
    await enqueue(player.id);
    await jobState(player.id, ["completed"]);
    expect((await profileOf(player.id))?.profile).toMatchObject({
      username: `${taken.toLowerCase()}-${player.address.slice(-8)}`,
      name: "Copycat",
    });
  });

  it("only stamps last_checked_at when the source has no profile for the address", async () => {
    const player = await createPlayer(platform.admin, { name: "Unchanged", lastCheckedAt: OLD });
    await enqueue(player.id);
    await jobState(player.id, ["completed"]);
    const saved = await profileOf(player.id);
    expect(saved?.profile.name).toBe("Unchanged");
    expect(Date.parse(saved?.profile.lastCheckedAt ?? "")).toBeGreaterThan(Date.parse(OLD));
  });

  it("writes nothing when part of the write is refused, and leaves the job to be retried", async () => {
    const player = await createPlayer(platform.admin, { name: "Before", lastCheckedAt: OLD });
    // The accounts are written first; the colour mask then breaks profile's foreign key.
    profiles.set(player.address, {
      json: { name: "After", colorMask: 999, accounts: [{ type: "TWITTER", identifier: `half-${player.address}` }] },
    });
    await enqueue(player.id);
    const job = await jobState(player.id, ["retry", "failed"]);
    expect(JSON.stringify(job.output)).toContain("profile_color_mask_fkey");
    const saved = await profileOf(player.id);
    expect(saved?.profile).toMatchObject({ name: "Before", lastCheckedAt: expect.stringMatching(/^2020-01-01/) });
    expect(saved?.accounts).toEqual([]);
    // Still pending (waiting for its retry): a second request queues nothing.
    expect(await enqueue(player.id)).toEqual({ success: true, queued: false });
  });

  it("writes nothing when the source fails or breaks the contract", async () => {
    const failing = await createPlayer(platform.admin, { name: "Before", lastCheckedAt: OLD });
    profiles.set(failing.address, { status: 503, json: { error: "down" } });
    const invalid = await createPlayer(platform.admin, { name: "Before", lastCheckedAt: OLD });
    profiles.set(invalid.address, { json: { name: 42 } });
    await enqueue(failing.id);
    await enqueue(invalid.id);
    expect(JSON.stringify((await jobState(failing.id, ["retry"])).output)).toContain("the profile source answered 503");
    expect(JSON.stringify((await jobState(invalid.id, ["retry"])).output)).toContain("name must be a string");
    for (const p of [failing, invalid])
      expect((await profileOf(p.id))?.profile).toMatchObject({ name: "Before", lastCheckedAt: expect.stringMatching(/^2020-01-01/) });
  });

  it("completes a job for a player that does not exist, as retrying cannot help", async () => {
    const nobody = "00000000-0000-4000-8000-00000000dead";
    expect(await enqueue(nobody)).toEqual({ success: true, queued: true });
    await jobState(nobody, ["completed"]);
    expect(await enqueue("not-a-uuid")).toEqual({ success: true, queued: true });
    await jobState("not-a-uuid", ["completed"]);
  });
});

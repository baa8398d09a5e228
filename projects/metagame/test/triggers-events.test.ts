/**
 * POST /triggers with the engine's event payloads, Discord played by a stateful HTTP stand-in:
 * the session rule, dispatch by trigger name, guild members re-synced from Discord roles (in the
 * database, through the engine), the profile refresh queued, rank and role changes mirrored as
 * Discord roles.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOT_TOKEN, type DiscordStandIn, startDiscordStandIn } from "./support/discord.js";
import { deliver } from "./support/events.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

const METAFAM = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
const METAFAM_SERVER = "629411177947987986";
const GUILD = "2b000000-0000-4000-8000-000000000001";
const OTHER_GUILD = "2b000000-0000-4000-8000-000000000002";
const SERVER = "910000000000000001";
const MEMBER_ROLE = "720000000000000001";
const P = (n: number) => `2a000000-0000-4000-8000-00000000000${n}`;
const D = (n: number) => `81000000000000000${n}`;
const RANK_ROLES = {
  DIAMOND: "730000000000000001",
  PLATINUM: "730000000000000002",
  GOLD: "730000000000000003",
  SILVER: "730000000000000004",
  BRONZE: "730000000000000005",
};
const ENGINEER_ROLE = "740000000000000001";

let discord: DiscordStandIn;
let platform: TestPlatform;

const guildRow = (status = "ACTIVE") => ({
  id: GUILD,
  name: "Syncers",
  guildname: "syncers",
  type: "SOCIAL",
  discord_id: SERVER,
  membership_through_discord: true,
  status,
});

async function members(guildId: string): Promise<string[]> {
  const answer = await platform.admin<{ guild_player: Array<{ playerId: string }> }>(
    "query M($id: uuid!) { guild_player(where: {guildId: {_eq: $id}}, order_by: {playerId: asc}) { playerId } }",
    { id: guildId },
  );
  return answer.data?.guild_player.map((row) => row.playerId) ?? [];
}

beforeAll(async () => {
  discord = await startDiscordStandIn();
  platform = await startPlatform({ backendEnv: { DISCORD_API_URL: discord.url, DISCORD_BOT_TOKEN: BOT_TOKEN } });
  const players = [1, 2, 3, 4].map((n) => ({ id: P(n), ethereumAddress: `0x${"0".repeat(39)}${n}`, discordId: n === 4 ? null : D(n) }));
  const seeded = await platform.admin(
    `mutation Seed($players: [player_insert_input!]!, $guild: uuid!, $other: uuid!, $metafam: uuid!, $metadata: jsonb!, $metafamMetadata: jsonb!) {
      insert_player(objects: $players) { affected_rows }
      insert_guild(objects: [
        {id: $guild, guildname: "syncers", name: "Syncers", type: SOCIAL, discordId: "${SERVER}", membershipThroughDiscord: true},
        {id: $other, guildname: "others", name: "Others", type: SOCIAL}
      ]) { affected_rows }
      insert_guild_metadata_one(object: {guildId: $guild, discordId: "${SERVER}", discordMetadata: $metadata}) { guildId }
      insert_guild_player(objects: [{guildId: $guild, playerId: "${P(2)}"}, {guildId: $guild, playerId: "${P(3)}"}, {guildId: $other, playerId: "${P(3)}"}]) { affected_rows }
      update_guild_metadata(where: {guildId: {_eq: $metafam}}, _set: {discordMetadata: $metafamMetadata}) { affected_rows }
    }`,
    {
      players,
      guild: GUILD,
      other: OTHER_GUILD,
      metafam: METAFAM,
      metadata: { membershipRoleIds: [MEMBER_ROLE], playerRoles: {}, rankRoleIds: {} },
      metafamMetadata: { membershipRoleIds: [], playerRoles: { ENGINEER: ENGINEER_ROLE }, rankRoleIds: RANK_ROLES },
    },
  );
  expect(seeded.errors).toBeUndefined();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await discord?.close();
});

describe("POST /triggers", () => {
  it("refuses events whose session is not the admin's, MetaGame's rule (a null session included)", async () => {
    const sessions: Array<Record<string, string> | null> = [null, { "x-hasura-role": "player", "x-hasura-user-id": P(1) }, {}];
    for (const session of sessions) {
      const answer = await deliver(platform.backend.url, {
        trigger: "cacheIDXProfile",
        table: "player",
        op: "INSERT",
        new: { id: P(1) },
        session,
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ message: expect.stringContaining("role admin only"), extensions: { code: "forbidden" } });
    }
    const upperCase = await deliver(platform.backend.url, {
      trigger: "cacheIDXProfile",
      table: "player",
      op: "INSERT",
      new: { id: P(1) },
      session: { "X-Hasura-Role": "admin" },
    });
    expect(upperCase.status).toBe(200);
  });

  it("answers 404 for a trigger it does not handle, 400 for a body that is not an event", async () => {
    const unknown = await deliver(platform.backend.url, {
      trigger: "cacheComposeDBProfile",
      table: "player",
      op: "INSERT",
      new: { id: P(1) },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.extensions).toEqual({ code: "not-found" });
    const response = await fetch(`${platform.backend.url}/triggers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"event": {}}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { extensions: { code: string } }).extensions.code).toBe("FST_ERR_VALIDATION");
  });

  it("cacheIDXProfile queues a refresh of the new player's profile, when the engine delivers the insert's event", async () => {
    // The seed's insert made the event; the engine delivered it to the handler, which queued the refresh.
    const delivered = sql`
      SELECT i.response -> 'data' ->> 'body' AS body FROM hdb_catalog.event_log e
      JOIN hdb_catalog.event_invocation_logs i ON i.event_id = e.id
      WHERE e.trigger_name = 'cacheIDXProfile' AND e.delivered AND e.payload -> 'data' -> 'new' ->> 'id' = ${P(4)}`;
    const deadline = Date.now() + 10_000;
    let rows = (await platform.scratch.db.query<{ body: string }>(delivered)).rows;
    while (rows.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = (await platform.scratch.db.query<{ body: string }>(delivered)).rows;
    }
    expect(rows.map((r) => JSON.parse(r.body))).toEqual([{ message: "profile refresh queued", playerId: P(4), queued: true }]);
    // Delivered by hand (as Hasura's console's "invoke" would), it is answered as well.
    const answer = await deliver(platform.backend.url, {
      trigger: "cacheIDXProfile",
      table: "player",
      op: "INSERT",
      new: { id: P(4), ethereum_address: "0x" },
    });
    expect(answer).toMatchObject({ status: 200, body: { playerId: P(4) } });
  });

  it("syncDiscordGuildMembers makes the guild's members the players holding a membership role in its server", async () => {
    discord.members.set(
      SERVER,
      new Map([
        [D(1), [MEMBER_ROLE]],
        [D(2), ["799999999999999999", MEMBER_ROLE]],
        [D(3), ["799999999999999999"]],
        ["819999999999999999", [MEMBER_ROLE]], // in the server, not a player
      ]),
    );
    expect(await members(GUILD)).toEqual([P(2), P(3)]);
    const answer = await deliver(platform.backend.url, {
      trigger: "syncDiscordGuildMembers",
      table: "guild",
      op: "UPDATE",
      old: { ...guildRow(), membership_through_discord: false },
      new: guildRow(),
    });
    expect(answer).toEqual({ status: 200, body: { message: "guild members synced", guildId: GUILD, added: 1, removed: 1 } });
    expect(await members(GUILD)).toEqual([P(1), P(2)]);
    // Another guild's members are not this guild's business.
    expect(await members(OTHER_GUILD)).toEqual([P(3)]);
    const list = discord.received.find((r) => r.path.startsWith(`/guilds/${SERVER}/members?`));
    expect(list?.path).toBe(`/guilds/${SERVER}/members?limit=1000&after=0`);
  });

  it("syncDiscordGuildMembers empties a guild that is no longer ACTIVE, without asking Discord", async () => {
    discord.received.length = 0;
    const answer = await deliver(platform.backend.url, {
      trigger: "syncDiscordGuildMembers",
      table: "guild",
      op: "UPDATE",
      old: guildRow(),
      new: guildRow("INACTIVE"),
    });
    expect(answer.body).toEqual({ message: "guild members synced", guildId: GUILD, added: 0, removed: 2 });
    expect(await members(GUILD)).toEqual([]);
    expect(discord.received).toEqual([]);
  });

  it("playerRankUpdated swaps the rank role and announces a promotion only", async () => {
    discord.members.set(METAFAM_SERVER, new Map([[D(1), [RANK_ROLES.BRONZE, "799999999999999999"]]]));
    const player = (rank: string | null) => ({ id: P(1), discord_id: D(1), rank, ethereum_address: `0x${"0".repeat(39)}1` });
    const promoted = await deliver(platform.backend.url, {
      trigger: "playerRankUpdated",
      table: "player",
      op: "UPDATE",
      old: player("BRONZE"),
      new: player("GOLD"),
    });
    expect(promoted.body).toEqual({ message: "rank roles updated", added: [RANK_ROLES.GOLD], removed: [RANK_ROLES.BRONZE] });
    expect(discord.members.get(METAFAM_SERVER)?.get(D(1))).toEqual(["799999999999999999", RANK_ROLES.GOLD]);
    expect(discord.posted).toEqual([{ channel: "718557002221224037", content: `<@${D(1)}> has risen to GOLD. Congratulations!` }]);

    const demoted = await deliver(platform.backend.url, {
      trigger: "playerRankUpdated",
      table: "player",
      op: "UPDATE",
      old: player("GOLD"),
      new: player("SILVER"),
    });
    expect(demoted.body).toEqual({ message: "rank roles updated", added: [RANK_ROLES.SILVER], removed: [RANK_ROLES.GOLD] });
    expect(discord.posted).toHaveLength(1);

    const unranked = await deliver(platform.backend.url, {
      trigger: "playerRankUpdated",
      table: "player",
      op: "UPDATE",
      old: player("SILVER"),
      new: player(null),
    });
    expect(unranked.body).toEqual({ message: "rank roles updated", added: [], removed: [RANK_ROLES.SILVER] });
    expect(discord.members.get(METAFAM_SERVER)?.get(D(1))).toEqual(["799999999999999999"]);
  });

  it("playerRoleChanged adds the role's Discord role on insert and removes it on delete", async () => {
    const row = { player_id: P(1), role: "ENGINEER", rank: 1 };
    const added = await deliver(platform.backend.url, { trigger: "playerRoleChanged", table: "player_role", op: "INSERT", new: row });
    expect(added.body).toEqual({ message: "role added", roleId: ENGINEER_ROLE });
    expect(discord.members.get(METAFAM_SERVER)?.get(D(1))).toContain(ENGINEER_ROLE);
    const removed = await deliver(platform.backend.url, { trigger: "playerRoleChanged", table: "player_role", op: "DELETE", old: row });
    expect(removed.body).toEqual({ message: "role removed", roleId: ENGINEER_ROLE });
    expect(discord.members.get(METAFAM_SERVER)?.get(D(1))).not.toContain(ENGINEER_ROLE);

    discord.received.length = 0;
    const noDiscord = await deliver(platform.backend.url, {
      trigger: "playerRoleChanged",
      table: "player_role",
      op: "INSERT",
      new: { ...row, player_id: P(4) },
    });
    expect(noDiscord.body).toEqual({ message: "skipped: the player has no Discord id" });
    const unmapped = await deliver(platform.backend.url, {
      trigger: "playerRoleChanged",
      table: "player_role",
      op: "INSERT",
      new: { ...row, role: "ARTIST" },
    });
    expect(unmapped.body).toEqual({ message: "skipped: no Discord role for ARTIST" });
    expect(discord.received).toEqual([]);
  });

  it("answers a Discord failure with 502 and Discord's status in the message", async () => {
    discord.failWith = 500;
    try {
      const answer = await deliver(platform.backend.url, {
        trigger: "playerRoleChanged",
        table: "player_role",
        op: "INSERT",
        new: { player_id: P(1), role: "ENGINEER", rank: 1 },
      });
      expect(answer.status).toBe(502);
      expect(answer.body).toEqual({ message: "Discord: answered HTTP 500", extensions: { code: "upstream-error" } });
    } finally {
      discord.failWith = null;
    }
  });
});

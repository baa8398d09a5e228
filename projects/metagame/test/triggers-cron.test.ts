/**
 * The cron targets (POST /actions/migrateSourceCredAccounts, /actions/syncAllGuildDiscordMembers)
 * with SourceCred's accounts file and Discord played by HTTP stand-ins, and every trigger handler
 * on a second backend instance with no Discord and no SourceCred configured: they skip (logged)
 * and still do their database-only part.
 */
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBackendConfig } from "../backend/src/config.js";
import { type RunningBackend, startBackend } from "../backend/src/server.js";
import { isSeasonStart, rankAt, seasonStart, weeksInSeason } from "../backend/src/triggers/sourcecred-accounts.js";
import { eventually } from "./support/actions-support.js";
import { BOT_TOKEN, type DiscordStandIn, startDiscordStandIn } from "./support/discord.js";
import { deliver, deliverCron } from "./support/events.js";
import { ADMIN_SECRET, CRON_SECRET, startPlatform, type TestPlatform } from "./support/platform.js";
import { type StandIn, startStandIn } from "./support/stand-in.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const PLAYER = (n: number) => `3c000000-0000-4000-8000-0000000000${String(n).padStart(2, "0")}`;
const alias = (parts: string[], description = "") => ({ address: `N\0${parts.join("\0")}\0`, description });
const eth = (addr: string) => alias(["sourcecred", "ethereum", "ETH_ADDRESS", addr], addr);
const user = (totalCred: number, aliases: ReturnType<typeof alias>[], cred: number[] = []) => ({
  account: { identity: { subtype: "USER", name: `u${totalCred}`, aliases }, balance: "0", active: true },
  cred,
  totalCred,
});
const WEEKLY = Array.from({ length: 30 }, (_, i) => i + 1);

// 20 users above Alice (no address: ranked, not players), then Alice (index 20, GOLD) and Bob
// (21, SILVER), 40 more, then Erin at index 62: unranked.
const LEDGER = {
  accounts: [
    ...Array.from({ length: 20 }, (_, i) => user(10_000 - i, [])),
    user(
      500,
      [
        eth("0xAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAA0001"),
        eth(address(1).toUpperCase().replace("0X", "0x")),
        alias(["sourcecred", "discord", "MEMBER", "user", "820000000000000001"]),
        alias(["sourcecred", "github", "USERLIKE", "USER", "alice-gh"]),
      ],
      WEEKLY,
    ),
    user(300, [eth(address(2)), alias(["sourcecred", "discourse", "user", "forum.metagame.wtf", "bob"])], [1, 2]),
    ...Array.from({ length: 40 }, (_, i) => user(250 - i, [])),
    user(5, [eth(address(5))]),
    user(400, [eth(address(9))]), // no player has this address
    { ...user(9_999_999, [eth(address(1))]), account: { identity: { subtype: "BOT", aliases: [eth(address(1))] } } },
  ],
  intervalEndpoints: [],
};

let platform: TestPlatform;
let discord: DiscordStandIn;
let sourcecred: StandIn;
let bare: RunningBackend;

beforeAll(async () => {
  discord = await startDiscordStandIn();
  sourcecred = await startStandIn((request) =>
    request.path === "/output/accounts.json" ? { body: LEDGER } : { status: 404, body: "Not Found" },
  );
  platform = await startPlatform({
    backendEnv: {
      DISCORD_API_URL: discord.url,
      DISCORD_BOT_TOKEN: BOT_TOKEN,
      SOURCECRED_LEDGER_URL: `${sourcecred.url}/output/accounts.json`,
    },
  });
  // A second instance of the backend on the same engine, with no third party configured.
  bare = await startBackend(
    readBackendConfig({
      METAGAME_BACKEND_HOST: "127.0.0.1",
      METAGAME_BACKEND_PORT: "0",
      METAGAME_GRAPHQL_URL: `${platform.engineUrl}/v1/graphql`,
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      METAGAME_CRON_SECRET: CRON_SECRET,
    }),
    createLogger({ level: "silent" }),
    { db: platform.scratch.db },
  );
  const seeded = await platform.admin(
    `mutation Seed($players: [player_insert_input!]!, $guilds: [guild_insert_input!]!, $metadata: [guild_metadata_insert_input!]!) {
      insert_player(objects: $players) { affected_rows }
      insert_guild(objects: $guilds) { affected_rows }
      insert_guild_metadata(objects: $metadata) { affected_rows }
    }`,
    {
      players: [
        { id: PLAYER(1), ethereumAddress: address(1), totalXP: 1, rank: "BRONZE" },
        { id: PLAYER(2), ethereumAddress: address(2), discordId: "820000000000000002" },
        { id: PLAYER(5), ethereumAddress: address(5), rank: "BRONZE", totalXP: 3 },
        { id: PLAYER(6), ethereumAddress: address(6), discordId: "820000000000000006" },
      ],
      guilds: [
        {
          id: PLAYER(50),
          guildname: "alpha",
          name: "Alpha",
          type: "SOCIAL",
          discordId: "920000000000000001",
          membershipThroughDiscord: true,
        },
        {
          id: PLAYER(51),
          guildname: "beta",
          name: "Beta",
          type: "SOCIAL",
          discordId: "920000000000000002",
          membershipThroughDiscord: true,
        },
        {
          id: PLAYER(52),
          guildname: "gamma",
          name: "Gamma",
          type: "SOCIAL",
          discordId: "920000000000000003",
          membershipThroughDiscord: true,
          status: "INACTIVE",
        },
      ],
      metadata: [50, 51, 52].map((n, i) => ({
        guildId: PLAYER(n),
        discordId: `92000000000000000${i + 1}`,
        discordMetadata: { membershipRoleIds: [`75000000000000000${i + 1}`] },
      })),
    },
  );
  expect(seeded.errors).toBeUndefined();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await bare?.close();
  await platform?.close();
  await discord?.close();
  await sourcecred?.close();
});

async function players() {
  const answer = await platform.admin<{ player: Array<Record<string, unknown>> }>(
    `{ player(where: {id: {_in: ["${PLAYER(1)}", "${PLAYER(2)}", "${PLAYER(5)}"]}}, order_by: {id: asc}) {
      id totalXP seasonXP rank discordId accounts(order_by: [{type: asc}, {identifier: asc}]) { type identifier }
    } }`,
  );
  return answer.data?.player;
}

describe("the seasons and ranks of the SourceCred migration", () => {
  it("starts seasons on 20 March, 21 June, 22 September and 21 December, UTC", () => {
    expect(seasonStart(new Date("2024-03-19T23:59:59Z")).toISOString()).toBe("2023-12-21T00:00:00.000Z");
    expect(seasonStart(new Date("2024-03-20T00:00:00Z")).toISOString()).toBe("2024-03-20T00:00:00.000Z");
    expect(seasonStart(new Date("2024-12-25T00:00:00Z")).toISOString()).toBe("2024-12-21T00:00:00.000Z");
    expect(weeksInSeason(new Date("2024-06-21T00:00:00Z"))).toBe(0);
    expect(weeksInSeason(new Date("2024-06-21T00:00:01Z"))).toBe(1);
    expect(weeksInSeason(new Date("2024-07-06T12:00:00Z"))).toBe(3);
    expect(isSeasonStart(new Date("2024-09-22T18:00:00Z"))).toBe(true);
    expect(isSeasonStart(new Date("2024-09-23T00:00:00Z"))).toBe(false);
    expect([0, 6, 7, 13, 14, 20, 21, 34, 35, 55, 56].map(rankAt)).toEqual([
      "DIAMOND",
      "DIAMOND",
      "PLATINUM",
      "PLATINUM",
      "GOLD",
      "GOLD",
      "SILVER",
      "SILVER",
      "BRONZE",
      "BRONZE",
      null,
    ]);
  });
});

describe("POST /actions/migrateSourceCredAccounts", () => {
  it("sets players' XP, season XP, rank and Discord id from the ledger, and links their accounts", async () => {
    const weeks = weeksInSeason(new Date());
    const answer = await deliverCron(platform.backend.url, "migrateSourceCredAccounts", "migrateSourceCredLedger");
    expect(answer).toEqual({ status: 200, body: { message: "XP migrated from SourceCred", numUpdated: 3, numSkipped: 1 } });
    const seasonOf = (cred: number[]) => (weeks > 0 ? cred.slice(-weeks).reduce((a, b) => a + b, 0) : 0);
    expect(await players()).toEqual([
      {
        id: PLAYER(1),
        totalXP: 500,
        seasonXP: seasonOf(WEEKLY),
        rank: "GOLD",
        discordId: "820000000000000001",
        accounts: [
          { type: "ETHEREUM", identifier: "0x0000000000000000000000000000000000000001" },
          { type: "ETHEREUM", identifier: "0xAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAA0001" },
          { type: "GITHUB", identifier: "alice-gh" },
        ],
      },
      {
        id: PLAYER(2),
        totalXP: 300,
        seasonXP: seasonOf([1, 2]),
        rank: "SILVER",
        discordId: "820000000000000002",
        accounts: [
          { type: "DISCOURSE", identifier: "bob" },
          { type: "ETHEREUM", identifier: address(2) },
        ],
      },
      { id: PLAYER(5), totalXP: 5, seasonXP: 0, rank: null, discordId: null, accounts: [{ type: "ETHEREUM", identifier: address(5) }] },
    ]);
    // Running it again changes nothing and links nothing twice.
    const again = await deliverCron(platform.backend.url, "migrateSourceCredAccounts", "migrateSourceCredLedger");
    expect(again.body).toEqual({ message: "XP migrated from SourceCred", numUpdated: 3, numSkipped: 1 });
    expect((await players())?.[0]?.accounts).toHaveLength(3);
  });

  it("skips, with a log line, when SourceCred is not configured", async () => {
    const answer = await deliverCron(bare.url, "migrateSourceCredAccounts", "migrateSourceCredLedger");
    expect(answer).toEqual({ status: 200, body: { message: "skipped: SourceCred is not configured" } });
  });
});

describe("POST /actions/syncAllGuildDiscordMembers", () => {
  it("syncs every active guild whose membership goes through Discord", async () => {
    discord.members.set("920000000000000001", new Map([["820000000000000002", ["750000000000000001"]]]));
    discord.members.set(
      "920000000000000002",
      new Map([
        ["820000000000000006", ["750000000000000002"]],
        ["820000000000000002", []],
      ]),
    );
    discord.members.set("920000000000000003", new Map([["820000000000000006", ["750000000000000003"]]]));
    const answer = await deliverCron(platform.backend.url, "syncAllGuildDiscordMembers", "syncAllGuildDiscordMembers");
    expect(answer.status).toBe(200);
    expect(answer.body.guilds).toEqual([
      { guildId: PLAYER(50), added: 1, removed: 0 },
      { guildId: PLAYER(51), added: 1, removed: 0 },
    ]);
    const rows = await platform.admin<{ guild_player: unknown[] }>(
      `{ guild_player(where: {guildId: {_in: ["${PLAYER(50)}", "${PLAYER(51)}", "${PLAYER(52)}"]}}, order_by: [{guildId: asc}]) { guildId playerId } }`,
    );
    expect(rows.data?.guild_player).toEqual([
      { guildId: PLAYER(50), playerId: PLAYER(2) },
      { guildId: PLAYER(51), playerId: PLAYER(6) },
    ]);
  });
});

describe("the engine's cron triggers", () => {
  const runs = async (trigger: string) =>
    (
      await platform.scratch.db.query<{ id: string; status: string }>({
        text: "SELECT id, status FROM hdb_catalog.hdb_cron_events WHERE trigger_name = $1 ORDER BY scheduled_time",
        values: [trigger],
      })
    ).rows;

  it("keeps the next 100 runs of each of the project's three, and delivers a due one to its target with the cron secret", async () => {
    for (const trigger of ["migrateSourceCredLedger", "queueExpiredIDXCacheEntries", "syncAllGuildDiscordMembers"])
      expect((await runs(trigger)).filter((r) => r.status === "scheduled")).toHaveLength(100);
    const first = (await runs("syncAllGuildDiscordMembers"))[0]?.id as string;
    await platform.scratch.db.query({
      text: "UPDATE hdb_catalog.hdb_cron_events SET scheduled_time = now() WHERE id = $1",
      values: [first],
    });
    const delivered = await eventually(async () => {
      const { rows } = await platform.scratch.db.query<{ status: string; response: { data: { status: number; body: string } } }>({
        text: `SELECT e.status, i.response FROM hdb_catalog.hdb_cron_events e
          JOIN hdb_catalog.hdb_cron_event_invocation_logs i ON i.event_id = e.id WHERE e.id = $1`,
        values: [first],
      });
      return rows[0]?.status === "delivered" ? rows[0] : undefined;
    });
    expect(delivered.response.data.status).toBe(200);
    expect(JSON.parse(delivered.response.data.body)).toMatchObject({ message: expect.stringMatching(/guild\(s\) synced from Discord$/) });
  });

  it("refuses a cron call without the secret, or with another one", async () => {
    for (const path of ["migrateSourceCredAccounts", "syncAllGuildDiscordMembers", "idxCache/checkExpired"]) {
      expect((await deliverCron(platform.backend.url, path, "x", null)).status).toBe(401);
      expect((await deliverCron(platform.backend.url, path, "x", "not-the-secret")).status).toBe(401);
    }
  });
});

describe("the handlers without Discord", () => {
  it("skip Discord's part and still do the database's", async () => {
    const guild = { id: PLAYER(50), name: "Alpha", discord_id: "920000000000000001", membership_through_discord: true, status: "ACTIVE" };
    const active = await deliver(bare.url, { trigger: "syncDiscordGuildMembers", table: "guild", op: "UPDATE", new: guild });
    expect(active.body).toEqual({
      message: "skipped: Discord is not configured",
      guildId: PLAYER(50),
      skipped: "Discord is not configured",
      added: 0,
      removed: 0,
    });
    const inactive = await deliver(bare.url, {
      trigger: "syncDiscordGuildMembers",
      table: "guild",
      op: "UPDATE",
      new: { ...guild, status: "INACTIVE" },
    });
    expect(inactive.body).toEqual({ message: "guild members synced", guildId: PLAYER(50), added: 0, removed: 1 });

    const player = { id: PLAYER(2), discord_id: "820000000000000002", rank: "GOLD" };
    const rank = await deliver(bare.url, {
      trigger: "playerRankUpdated",
      table: "player",
      op: "UPDATE",
      old: { ...player, rank: null },
      new: player,
    });
    expect(rank.body).toEqual({ message: "skipped: Discord is not configured" });
    const role = await deliver(bare.url, {
      trigger: "playerRoleChanged",
      table: "player_role",
      op: "INSERT",
      new: { player_id: PLAYER(2), role: "ENGINEER", rank: 1 },
    });
    expect(role.body).toEqual({ message: "skipped: Discord is not configured" });

    const all = await deliverCron(bare.url, "syncAllGuildDiscordMembers", "syncAllGuildDiscordMembers");
    expect(all.status).toBe(200);
    expect((all.body.guilds as Array<{ skipped?: string }>).map((g) => g.skipped)).toEqual([
      "Discord is not configured",
      "Discord is not configured",
    ]);
  });
});

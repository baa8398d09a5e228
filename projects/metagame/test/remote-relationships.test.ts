/**
 * The remote schema `backend` through the engine, with real HTTP stand-ins for BrightID, Discord,
 * a JSON-RPC node and a DAOhaus subgraph: the engine introspects the backend at start-up, reports
 * the remote schema and its relationships consistent, and joins players and guilds into it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { type StandIn, type StandInRequest, startStandIn } from "./support/stand-in.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

const VERIFIED = "0f6a7c3e-1d2b-4c5d-8e9f-00000000000a";
const UNVERIFIED = "0f6a7c3e-1d2b-4c5d-8e9f-00000000000b";
const ADDRESS = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";
const SERVER = "900000000000000001";
const VERIFIED_DISCORD = "800000000000000001";
const GUILD = "5f0f1f2f-3f4f-4f5f-8f6f-7f8f9fafbfcf";
const BOT_TOKEN = "stand-in-bot-token";

const ROLES = [
  { id: "700000000000000001", name: "@everyone", position: 0 },
  { id: "700000000000000002", name: "Member", position: 1 },
  { id: "700000000000000003", name: "Founder", position: 5 },
];

function provider(request: StandInRequest) {
  const path = request.path;
  if (path === `/brightid/node/v5/verifications/MetaGame/${VERIFIED}`) {
    return { body: { data: { unique: true, app: "MetaGame", context: "MetaGame", contextIds: [VERIFIED] } } };
  }
  if (path.startsWith("/brightid/")) return { status: 404, body: { error: true, errorNum: 3, errorMessage: "contextId not found" } };
  if (path === `/discord/guilds/${SERVER}/roles`) return { body: ROLES };
  if (path === `/discord/guilds/${SERVER}/members/${VERIFIED_DISCORD}`) {
    return { body: { user: { id: VERIFIED_DISCORD }, roles: ["700000000000000002", "700000000000000003"] } };
  }
  if (path === `/discord/guilds/${SERVER}/channels`) {
    return {
      body: [
        { id: "600000000000000001", type: 0 },
        { id: "600000000000000002", type: 5 },
      ],
    };
  }
  if (path.startsWith("/discord/channels/600000000000000002/messages")) {
    return {
      body: [
        { id: "1", content: "Older news", timestamp: "2024-01-01T00:00:00.000Z" },
        { id: "2", content: "Quest <b>time</b>\nline two\n\nnext paragraph", timestamp: "2024-02-01T00:00:00.000Z" },
      ],
    };
  }
  if (path === "/rpc") {
    const calls = request.body as Array<{ id: number; params: [{ data: string }] }>;
    return {
      body: calls.map((call) => ({
        jsonrpc: "2.0",
        id: call.id,
        result: call.params[0].data.endsWith("aa") ? `0x${(12n * 10n ** 18n).toString(16)}` : `0x${(3n * 10n ** 18n).toString(16)}`,
      })),
    };
  }
  if (path === "/daohaus") {
    const address = (request.body as { variables: { memberAddress: string } }).variables.memberAddress;
    if (address !== ADDRESS) return { body: { data: { members: [] } } };
    return {
      body: {
        data: {
          members: [
            {
              id: `0xdao-${ADDRESS}`,
              createdAt: "1600000000",
              molochAddress: "0x00000000000000000000000000000000000000dd",
              memberAddress: ADDRESS,
              delegateKey: ADDRESS,
              shares: "100",
              loot: "5",
              exists: true,
              kicked: false,
              moloch: {
                id: "0x00000000000000000000000000000000000000dd",
                summoner: OTHER,
                totalShares: "1000",
                totalLoot: "10",
                version: "2.1",
              },
            },
          ],
        },
      },
    };
  }
  return { status: 404, body: { message: "Unknown" } };
}

let stand: StandIn;
let platform: TestPlatform;

beforeAll(async () => {
  stand = await startStandIn(provider);
  platform = await startPlatform({
    backendEnv: {
      BRIGHTID_APP_URL: `${stand.url}/brightid`,
      DISCORD_API_URL: `${stand.url}/discord`,
      DISCORD_BOT_TOKEN: BOT_TOKEN,
      PSEED_RPC_URL: `${stand.url}/rpc`,
      DAOHAUS_GRAPH_URL: `${stand.url}/daohaus`,
    },
  });
  const seeded = await platform.admin(
    `mutation Seed($guild: uuid!, $verified: uuid!, $unverified: uuid!) {
      insert_player(objects: [
        {id: $verified, ethereumAddress: "${ADDRESS}", discordId: "${VERIFIED_DISCORD}", totalXP: 10},
        {id: $unverified, ethereumAddress: "${OTHER}", totalXP: 5}
      ]) { affected_rows }
      insert_guild_one(object: {id: $guild, guildname: "standins", name: "Stand-ins", type: SOCIAL, discordId: "${SERVER}"}) { id }
      insert_guild_metadata_one(object: {guildId: $guild, discordId: "${SERVER}", creatorId: $verified}) { guildId }
      insert_guild_player(objects: [{guildId: $guild, playerId: $verified}, {guildId: $guild, playerId: $unverified}]) { affected_rows }
    }`,
    { guild: GUILD, verified: VERIFIED, unverified: UNVERIFIED },
  );
  expect(seeded.errors).toBeUndefined();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await stand?.close();
});

describe("the remote schema through the engine", () => {
  it("is consistent: the remote schema, its relationships and the triggers are all served", async () => {
    expect(await platform.metadata("get_inconsistent_metadata")).toMatchObject({ is_consistent: true });
  });

  it("joins players into BrightID, DAOhaus and pSEED balances", async () => {
    stand.received.length = 0;
    const answer = await platform.admin<{ player: Array<Record<string, unknown>> }>(
      `{ player(order_by: {totalXP: desc}) {
          id
          brightid_status { unique app context contextIds }
          daohausMemberships { id shares loot molochAddress moloch { id chain title totalShares version } }
          token_balances { id seedBalance pSeedBalance }
      } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.player).toEqual([
      {
        id: VERIFIED,
        brightid_status: { unique: true, app: "MetaGame", context: "MetaGame", contextIds: [VERIFIED] },
        daohausMemberships: [
          {
            id: `0xdao-${ADDRESS}`,
            shares: "100",
            loot: "5",
            molochAddress: "0x00000000000000000000000000000000000000dd",
            moloch: {
              id: "0x00000000000000000000000000000000000000dd",
              chain: "ethereum",
              title: null,
              totalShares: "1000",
              version: "2.1",
            },
          },
        ],
        token_balances: { id: ADDRESS, seedBalance: "0", pSeedBalance: (12n * 10n ** 18n).toString() },
      },
      {
        id: UNVERIFIED,
        brightid_status: null,
        daohausMemberships: [],
        token_balances: { id: OTHER, seedBalance: "0", pSeedBalance: (3n * 10n ** 18n).toString() },
      },
    ]);
    const rpc = stand.received.filter((r) => r.path === "/rpc").flatMap((r) => r.body as Array<{ method: string; params: unknown[] }>);
    expect(rpc.map((c) => c.method)).toEqual(["eth_call", "eth_call"]);
    expect(rpc).toContainEqual(
      expect.objectContaining({
        params: [{ to: "0x8a8fcd351ed553fc75aecbc566a32f94471f302e", data: `0x70a08231${"0".repeat(24)}${ADDRESS.slice(2)}` }, "latest"],
      }),
    );
    const daohaus = stand.received.filter((r) => r.path === "/daohaus");
    expect(daohaus.map((r) => (r.body as { variables: unknown }).variables)).toEqual(
      expect.arrayContaining([{ memberAddress: ADDRESS }, { memberAddress: OTHER }]),
    );
  });

  it("serves the remote relationships to role public, as R-2022 sets no remote schema permissions", async () => {
    const answer = await platform.graphql<{ player: Array<{ brightid_status: unknown }> }>(
      `query One($id: uuid!) { player(where: {id: {_eq: $id}}) { brightid_status { unique } } }`,
      { id: VERIFIED },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.player).toEqual([{ brightid_status: { unique: true } }]);
  });

  it("joins guilds into Discord: announcements, server roles and members' roles", async () => {
    stand.received.length = 0;
    const answer = await platform.admin<Record<string, unknown>>(
      `query Guild($id: uuid!) {
        guild_by_pk(id: $id) { discordAnnouncements metadata { discordRoles { id name position } } }
        guild_player(where: {guildId: {_eq: $id}}, order_by: {Player: {totalXP: desc}}) { playerId discordRoles { id name position } }
      }`,
      { id: GUILD },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      guild_by_pk: {
        discordAnnouncements: ["<p>Quest &lt;b&gt;time&lt;/b&gt;<br />\nline two</p>\n<p>next paragraph</p>", "<p>Older news</p>"],
        metadata: {
          discordRoles: [
            { id: "700000000000000003", name: "Founder", position: 5 },
            { id: "700000000000000002", name: "Member", position: 1 },
            { id: "700000000000000001", name: "@everyone", position: 0 },
          ],
        },
      },
      guild_player: [
        {
          playerId: VERIFIED,
          discordRoles: [
            { id: "700000000000000003", name: "Founder", position: 5 },
            { id: "700000000000000002", name: "Member", position: 1 },
          ],
        },
        // No Discord id: no roles, and no call to Discord for them.
        { playerId: UNVERIFIED, discordRoles: [] },
      ],
    });
    const discord = stand.received.filter((r) => r.path.startsWith("/discord/"));
    expect(discord.every((r) => r.headers.authorization === `Bot ${BOT_TOKEN}`)).toBe(true);
    expect(discord.some((r) => r.path.includes(UNVERIFIED))).toBe(false);
  });

  it("answers the top-level fields: pSEED holders among the players, no pSEED price source", async () => {
    const answer = await platform.admin(`{ getTopPSeedHolders(limit: 1) { id pSeedBalance } getPSeedInfo { priceUsd } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ getTopPSeedHolders: [{ id: ADDRESS, pSeedBalance: (12n * 10n ** 18n).toString() }], getPSeedInfo: null });
  });

  it("reports a Discord failure on the field that needed it", async () => {
    const answer = await platform.admin(`{ getGuildDiscordRoles(guildDiscordId: "111111111111111111") { id } }`);
    expect(answer.errors?.[0]?.message).toContain("Discord: answered HTTP 404");
  });
});

/**
 * The guild actions through the engine: authenticateDiscordGuild against a Discord stand-in (the
 * token exchange, and the user's servers when the token names none), its answer when Discord is not
 * configured, and saveGuildInformation / saveGuildLayout with MetaGame's owner rules and DAO
 * reconciliation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, type Instance, randomAddress, type StandIn, startInstance, startStandIn } from "./support/actions-support.js";
import { ADMIN_SECRET, startPlatform, type TestPlatform } from "./support/platform.js";

let platform: TestPlatform;
let discord: StandIn;
let withDiscord: Instance;

/** What the stand-in's token endpoint names, by authorization code. */
const servers: Record<string, Record<string, unknown> | undefined> = {
  "code-new": { id: "9001", name: "Builders' Guild!", icon: "abc", roles: [{ name: "MetaGame", permissions: "66560" }] },
  "code-clash": { id: "9002", name: "builders guild", roles: [] },
  "code-listed": undefined,
};

beforeAll(async () => {
  discord = await startStandIn((request) => {
    if (request.method === "POST" && request.path === "/oauth2/token") {
      const form = new URLSearchParams(request.body);
      const code = form.get("code") ?? "";
      if (!(code in servers)) return { status: 400, json: { error: "invalid_grant" } };
      return { json: { access_token: `access-${code}`, refresh_token: `refresh-${code}`, token_type: "Bearer", guild: servers[code] } };
    }
    if (request.method === "GET" && request.path === "/users/@me/guilds") {
      return {
        json: [
          { id: "9100", name: "Someone else's", owner: false },
          { id: "9003", name: "Listed Server", owner: true },
        ],
      };
    }
    return { status: 404, json: { message: "404: Not Found" } };
  });
  // The platform has no Discord client settings; the second instance has them.
  platform = await startPlatform();
  withDiscord = await startInstance(platform.scratch.db, {
    DISCORD_API_URL: discord.url,
    DISCORD_CLIENT_ID: "client-id",
    DISCORD_CLIENT_SECRET: "client-secret",
    DISCORD_REDIRECT_URI: "https://game.example/join/guild/auth",
  });
});
afterAll(async () => {
  await withDiscord?.close();
  await platform?.close();
  await discord?.close();
});

const AUTH = `mutation ($code: String!) { authenticateDiscordGuild(code: $code) { success guildname exists error } }`;
type Auth = { authenticateDiscordGuild: { success: boolean; guildname: string | null; exists: boolean | null; error: string | null } };

const SAVE = `mutation ($g: GuildInfoInput!) { saveGuildInformation(guildInformation: $g) { success error } }`;
const LAYOUT = `mutation ($l: GuildLayoutInfoInput!) { saveGuildLayout(guildLayoutInfo: $l) { success error } }`;

async function guildByDiscordId(discordId: string) {
  const answer = await platform.admin<{
    guild: Array<{
      id: string;
      name: string;
      guildname: string;
      status: string;
      type: string;
      logo: string | null;
      membershipThroughDiscord: boolean;
      showDiscordAnnouncements: boolean;
      metadata: { creatorId: string | null; discordId: string; discordMetadata: Record<string, unknown> } | null;
    }>;
  }>(
    `query ($d: String!) { guild(where: {discordId: {_eq: $d}}) { id name guildname status type logo membershipThroughDiscord showDiscordAnnouncements metadata { creatorId discordId discordMetadata } } }`,
    { d: discordId },
  );
  return answer.data?.guild[0];
}

describe("authenticateDiscordGuild", () => {
  it("says so when Discord is not configured", async () => {
    const player = await createPlayer(platform.admin);
    const answer = await platform.asPlayer<Auth>(player.id, AUTH, { code: "code-new" });
    expect(answer.data?.authenticateDiscordGuild).toEqual({
      success: false,
      guildname: null,
      exists: null,
      error: "Discord sign-up is not configured on this server.",
    });
    expect(discord.requests).toHaveLength(0);
  });

  it("exchanges the code and registers the server as a pending guild of the caller", async () => {
    const owner = await createPlayer(withDiscord.admin);
    const answer = await withDiscord.asPlayer<Auth>(owner.id, AUTH, { code: "code-new" });
    expect(answer.data?.authenticateDiscordGuild).toEqual({ success: true, guildname: "buildersguild", exists: null, error: null });
    const exchange = discord.requests.find((r) => r.path === "/oauth2/token");
    expect(Object.fromEntries(new URLSearchParams(exchange?.body))).toEqual({
      client_id: "client-id",
      client_secret: "client-secret",
      grant_type: "authorization_code",
      code: "code-new",
      redirect_uri: "https://game.example/join/guild/auth",
    });
    expect(await guildByDiscordId("9001")).toMatchObject({
      name: "Builders' Guild!",
      guildname: "buildersguild",
      status: "PENDING",
      type: "PROJECT",
      logo: "https://cdn.discordapp.com/icons/9001/abc.png",
      membershipThroughDiscord: true,
      showDiscordAnnouncements: true,
      metadata: { creatorId: owner.id, discordId: "9001", discordMetadata: { refreshToken: "refresh-code-new", logoHash: "abc" } },
    });
    // The same server again: the guild exists and is already set up.
    const again = await withDiscord.asPlayer<Auth>(owner.id, AUTH, { code: "code-new" });
    expect(again.data?.authenticateDiscordGuild).toEqual({ success: true, guildname: "buildersguild", exists: true, error: null });
  });

  it("names the guild after a random id when its guildname is taken", async () => {
    const owner = await createPlayer(withDiscord.admin);
    const answer = await withDiscord.asPlayer<Auth>(owner.id, AUTH, { code: "code-clash" });
    expect(answer.data?.authenticateDiscordGuild.success).toBe(true);
    expect(answer.data?.authenticateDiscordGuild.guildname).toMatch(/^[0-9a-f]{32}$/);
    expect((await guildByDiscordId("9002"))?.metadata?.creatorId).toBe(owner.id);
  });

  it("takes the one server the user owns when the token names none", async () => {
    const owner = await createPlayer(withDiscord.admin);
    const answer = await withDiscord.asPlayer<Auth>(owner.id, AUTH, { code: "code-listed" });
    expect(answer.data?.authenticateDiscordGuild).toMatchObject({ success: true, guildname: "listedserver" });
    const listing = discord.requests.find((r) => r.path === "/users/@me/guilds");
    expect(listing?.headers.authorization).toBe("Bearer access-code-listed");
    expect((await guildByDiscordId("9003"))?.metadata?.discordMetadata).toEqual({ refreshToken: "refresh-code-listed" });
  });

  it("answers a refused code as success false with a clear message", async () => {
    // As role public (the admin secret acting as that role: the auth webhook is not part of these tests).
    const answer = await withDiscord.graphql<Auth>(
      AUTH,
      { code: "expired" },
      { "x-hasura-admin-secret": ADMIN_SECRET, "x-hasura-role": "public" },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.authenticateDiscordGuild).toMatchObject({
      success: false,
      error: "Discord did not accept the authorization code (HTTP 400).",
    });
  });
});

describe("saveGuildInformation and saveGuildLayout", () => {
  async function pendingGuild(creatorId: string, discordId: string) {
    const guildname = `g${discordId}`;
    const answer = await platform.admin<{ insert_guild_one: { id: string } }>(
      `mutation ($g: guild_insert_input!) { insert_guild_one(object: $g) { id } }`,
      { g: { name: guildname, guildname, type: "PROJECT", status: "PENDING", discordId } },
    );
    const id = answer.data?.insert_guild_one.id as string;
    await platform.admin(`mutation ($m: guild_metadata_insert_input!) { insert_guild_metadata_one(object: $m) { guildId } }`, {
      m: { guildId: id, creatorId, discordId, discordMetadata: { refreshToken: "r", logoHash: "h" } },
    });
    return id;
  }

  const info = (uuid: string, extra: Record<string, unknown> = {}) => ({
    uuid,
    guildname: "renamed",
    name: "Renamed Guild",
    type: "RESEARCH",
    description: "We research",
    joinUrl: "https://join.example",
    discordAdminRoles: ["1"],
    discordMembershipRoles: ["2", "3"],
    ...extra,
  });

  it("refuses unknown guilds and players other than the server owner", async () => {
    const owner = await createPlayer(platform.admin);
    const other = await createPlayer(platform.admin);
    const id = await pendingGuild(owner.id, "7001");
    const unknown = await platform.asPlayer<{ saveGuildInformation: unknown }>(owner.id, SAVE, { g: info("nope") });
    expect(unknown.data?.saveGuildInformation).toEqual({ success: false, error: "No pending guild with that ID exists." });
    const foreign = await platform.asPlayer<{ saveGuildInformation: unknown }>(other.id, SAVE, { g: info(id) });
    expect(foreign.data?.saveGuildInformation).toEqual({
      success: false,
      error: "Only the guild’s discord server owner can edit this guild.",
    });
    const noLayout = await platform.asPlayer<{ saveGuildLayout: unknown }>(owner.id, LAYOUT, {
      l: { uuid: "00000000-0000-4000-8000-000000000000", profileLayout: "{}" },
    });
    expect(noLayout.data?.saveGuildLayout).toEqual({ success: false, error: "No guild with that ID exists." });
    const foreignLayout = await platform.asPlayer<{ saveGuildLayout: unknown }>(other.id, LAYOUT, { l: { uuid: id, profileLayout: "{}" } });
    expect(foreignLayout.data?.saveGuildLayout).toEqual({
      success: false,
      error: "Only the guild’s discord server owner can edit this guild.",
    });
  });

  it("saves the guild, its DAOs and its Discord roles; and its layout", async () => {
    const owner = await createPlayer(platform.admin);
    const member = await createPlayer(platform.admin);
    const id = await pendingGuild(owner.id, "7002");
    const [kept, withMembers, unused, added] = [randomAddress(), randomAddress(), randomAddress(), randomAddress()];
    const first = await platform.asPlayer<{ saveGuildInformation: unknown }>(owner.id, SAVE, {
      g: info(id, {
        daos: [
          { contractAddress: kept, network: "mainnet", label: "Kept" },
          { contractAddress: withMembers, network: "xdai" },
          { contractAddress: unused, network: "polygon" },
        ],
      }),
    });
    expect(first.data?.saveGuildInformation).toEqual({ success: true, error: null });
    const daoId = async (address: string) =>
      (
        await platform.admin<{ dao: Array<{ id: string }> }>(`query ($a: String!) { dao(where: {contractAddress: {_eq: $a}}) { id } }`, {
          a: address,
        })
      ).data?.dao[0]?.id;
    await platform.admin(`mutation ($d: uuid!, $p: uuid!) { insert_dao_player_one(object: {daoId: $d, playerId: $p}) { daoId } }`, {
      d: await daoId(withMembers),
      p: member.id,
    });

    const second = await platform.asPlayer<{ saveGuildInformation: unknown }>(owner.id, SAVE, {
      g: info(id, {
        name: "Final",
        daos: [
          { contractAddress: kept, network: "mainnet", label: "Relabelled" },
          { contractAddress: added, network: "mainnet" },
        ],
      }),
    });
    expect(second.data?.saveGuildInformation).toEqual({ success: true, error: null });
    const saved = await platform.admin<{
      guild_by_pk: {
        name: string;
        guildname: string;
        type: string;
        description: string;
        joinButtonUrl: string;
        daos: Array<{ contractAddress: string; label: string | null }>;
        metadata: { discordMetadata: unknown };
      };
      dao: Array<{ contractAddress: string; guildId: string | null }>;
    }>(
      `query ($id: uuid!, $a: [String!]!) {
        guild_by_pk(id: $id) { name guildname type description joinButtonUrl daos(order_by: {label: asc_nulls_last}) { contractAddress label } metadata { discordMetadata } }
        dao(where: {contractAddress: {_in: $a}}) { contractAddress guildId }
      }`,
      { id, a: [withMembers, unused] },
    );
    const guild = saved.data?.guild_by_pk;
    expect(guild).toMatchObject({
      name: "Final",
      guildname: "renamed",
      type: "RESEARCH",
      description: "We research",
      joinButtonUrl: "https://join.example",
    });
    expect(guild?.daos).toEqual([
      { contractAddress: kept, label: "Relabelled" },
      { contractAddress: added, label: null },
    ]);
    expect(guild?.metadata.discordMetadata).toEqual({
      refreshToken: "r",
      logoHash: "h",
      membershipRoleIds: ["2", "3"],
      administratorRoleIds: ["1"],
    });
    // The DAO with a member is detached, the unused one deleted.
    expect(saved.data?.dao).toEqual([{ contractAddress: withMembers, guildId: null }]);

    const layout = await platform.asPlayer<{ saveGuildLayout: unknown }>(owner.id, LAYOUT, { l: { uuid: id, profileLayout: '{"lg":[]}' } });
    expect(layout.data?.saveGuildLayout).toEqual({ success: true, error: null });
    const read = await platform.admin<{ guild_by_pk: { profileLayout: string } }>(
      `query ($id: uuid!) { guild_by_pk(id: $id) { profileLayout } }`,
      { id },
    );
    expect(read.data?.guild_by_pk.profileLayout).toBe('{"lg":[]}');
  });

  it("changes nothing when one of the writes is refused", async () => {
    const owner = await createPlayer(platform.admin);
    const id = await pendingGuild(owner.id, "7003");
    // An upper-case address breaks dao's address check, after the guild's own update in the same mutation.
    const answer = await platform.asPlayer<{ saveGuildInformation: { success: boolean; error: string } }>(owner.id, SAVE, {
      g: info(id, { guildname: "nochange", daos: [{ contractAddress: `0x${"AB".repeat(20)}`, network: "mainnet" }] }),
    });
    expect(answer.data?.saveGuildInformation.success).toBe(false);
    expect(answer.data?.saveGuildInformation.error).toMatch(/contract_address_is_valid/);
    const read = await platform.admin<{ guild_by_pk: { guildname: string; metadata: { discordMetadata: unknown } } }>(
      `query ($id: uuid!) { guild_by_pk(id: $id) { guildname metadata { discordMetadata } } }`,
      { id },
    );
    expect(read.data?.guild_by_pk).toEqual({ guildname: "g7003", metadata: { discordMetadata: { refreshToken: "r", logoHash: "h" } } });
  });
});

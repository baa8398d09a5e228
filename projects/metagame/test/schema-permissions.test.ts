/**
 * The release's permissions at work, through real GraphQL requests as role `player` (and
 * `public`) over rows inserted as admin: `me` and `guild_metadata` show a player their own rows
 * only and a visitor nothing; presets fill player_id on role and skill inserts; row filters bound
 * what a player may change; quest's update check refuses a RECURRING quest without a cooldown;
 * quest's backend-only insert is refused to an ordinary request; aggregates only where allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GraphqlAnswer, startPlatform, type TestPlatform } from "./support/platform.js";
import { roleHeaders } from "./support/schema-introspection.js";

const A = "a0000000-0000-4000-8000-00000000000a";
const B = "b0000000-0000-4000-8000-00000000000b";
const GUILD = "f94b7cd4-cf29-4251-baa5-eaacab98a719"; // metafam, seeded with its Discord metadata
let platform: TestPlatform;
let questA: string;
let questB: string;
let skill: string;

const ok = <T>(answer: GraphqlAnswer<T>): T => {
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data as T;
};
const errorOf = (answer: GraphqlAnswer) => ({ code: answer.errors?.[0]?.extensions?.code, message: answer.errors?.[0]?.message });

beforeAll(async () => {
  platform = await startPlatform();
  const data = ok(
    await platform.admin<{ insert_quest: { returning: { id: string; title: string }[] }; skill: { id: string }[] }>(
      `mutation ($a: uuid!, $b: uuid!, $guild: uuid!) {
        insert_player(objects: [
          {id: $a, ethereumAddress: "0x000000000000000000000000000000000000000a"},
          {id: $b, ethereumAddress: "0x000000000000000000000000000000000000000b"}]) { affected_rows }
        insert_profile(objects: [{playerId: $a, username: "alice"}, {playerId: $b, username: "bob"}]) { affected_rows }
        update_guild_metadata(where: {guildId: {_eq: $guild}}, _set: {creatorId: $a}) { affected_rows }
        insert_quest(objects: [
          {title: "A's quest", guildId: $guild, createdByPlayerId: $a},
          {title: "B's quest", guildId: $guild, createdByPlayerId: $b}]) { returning { id title } }
        insert_player_role(objects: [{player_id: $a, role: "WRITER", rank: 1}]) { affected_rows }
      }`,
      { a: A, b: B, guild: GUILD },
    ),
  );
  const byTitle = new Map(data.insert_quest.returning.map((q) => [q.title, q.id]));
  questA = byTitle.get("A's quest") as string;
  questB = byTitle.get("B's quest") as string;
  skill = ok(await platform.admin<{ skill: { id: string }[] }>(`{ skill(limit: 1, order_by: {name: asc}) { id } }`)).skill[0]?.id as string;
});
afterAll(() => platform?.close());

describe("what a player and a visitor may read", () => {
  it("shows a player their own row of me, and a visitor no me at all", async () => {
    expect(ok(await platform.asPlayer(A, `{ me { id username ethereumAddress } }`))).toEqual({
      me: [{ id: A, username: "alice", ethereumAddress: "0x000000000000000000000000000000000000000a" }],
    });
    expect(ok(await platform.asPlayer(B, `{ me { username } }`))).toEqual({ me: [{ username: "bob" }] });
    expect(errorOf(await platform.graphql(`{ me { id } }`, {}, roleHeaders("public")))).toEqual({
      code: "validation-failed",
      message: "field 'me' not found in type: 'query_root'",
    });
  });

  it("shows guild_metadata to the guild's Discord creator only", async () => {
    expect(ok(await platform.asPlayer(A, `{ guild_metadata { guildId creatorId discordId } }`))).toEqual({
      guild_metadata: [{ guildId: GUILD, creatorId: A, discordId: "629411177947987986" }],
    });
    expect(ok(await platform.asPlayer(B, `{ guild_metadata { guildId } }`))).toEqual({ guild_metadata: [] });
    // Nor through the guild's relationship.
    expect(ok(await platform.asPlayer(B, `query ($g: uuid!) { guild_by_pk(id: $g) { metadata { guildId } } }`, { g: GUILD }))).toEqual({
      guild_by_pk: { metadata: null },
    });
    expect(errorOf(await platform.graphql(`{ guild_metadata { guildId } }`, {}, roleHeaders("public"))).code).toBe("validation-failed");
  });

  it("lets everyone read the world, and aggregate players, skills and quests only", async () => {
    const world = ok(
      await platform.graphql<{ player_aggregate: { aggregate: { count: number } } }>(
        `{ player_aggregate { aggregate { count } } quest_aggregate { aggregate { count } } }`,
        {},
        roleHeaders("public"),
      ),
    );
    expect(world.player_aggregate.aggregate.count).toBe(2);
    expect(errorOf(await platform.asPlayer(A, `{ guild_aggregate { aggregate { count } } }`)).code).toBe("validation-failed");
    expect(errorOf(await platform.asPlayer(A, `{ player { roles_aggregate { aggregate { count } } } }`)).code).toBe("validation-failed");
    // Enum tables are the admin's: their values come through the *_enum columns.
    expect(errorOf(await platform.asPlayer(A, `{ quest { QuestStatus { status } } }`)).code).toBe("validation-failed");
  });
});

describe("what a player may change", () => {
  it("fills player_id from the session on role and skill inserts, and refuses a player_id given", async () => {
    expect(
      ok(await platform.asPlayer(B, `mutation { insert_player_role_one(object: {role: "BUILDER", rank: 2}) { player_id role rank } }`)),
    ).toEqual({
      insert_player_role_one: { player_id: B, role: "BUILDER", rank: 2 },
    });
    expect(
      ok(
        await platform.asPlayer(B, `mutation ($s: uuid!) { insert_player_skill_one(object: {skill_id: $s}) { player_id skill_id } }`, {
          s: skill,
        }),
      ),
    ).toEqual({ insert_player_skill_one: { player_id: B, skill_id: skill } });
    const named = await platform.asPlayer(
      B,
      `mutation ($a: uuid!) { insert_player_role_one(object: {player_id: $a, role: "ARTIST", rank: 1}) { role } }`,
      {
        a: A,
      },
    );
    expect(errorOf(named).code).toBe("validation-failed");
  });

  it("deletes and updates only the player's own rows", async () => {
    expect(ok(await platform.asPlayer(B, `mutation { delete_player_role(where: {role: {_eq: "WRITER"}}) { affected_rows } }`))).toEqual({
      delete_player_role: { affected_rows: 0 },
    });
    expect(
      ok(
        await platform.asPlayer(
          B,
          `mutation ($a: uuid!) { update_player_by_pk(pk_columns: {id: $a}, _set: {profileLayout: "x"}) { id } }`,
          { a: A },
        ),
      ),
    ).toEqual({
      update_player_by_pk: null,
    });
    expect(
      ok(
        await platform.asPlayer(
          A,
          `mutation ($a: uuid!) { update_player_by_pk(pk_columns: {id: $a}, _set: {profileLayout: "x"}) { profileLayout } }`,
          { a: A },
        ),
      ),
    ).toEqual({
      update_player_by_pk: { profileLayout: "x" },
    });
    expect(
      ok(
        await platform.asPlayer(B, `mutation ($q: uuid!) { update_quest_by_pk(pk_columns: {id: $q}, _set: {title: "taken"}) { id } }`, {
          q: questA,
        }),
      ),
    ).toEqual({
      update_quest_by_pk: null,
    });
  });

  it("refuses to make a quest RECURRING without a cooldown, and accepts it with one", async () => {
    const refused = await platform.asPlayer(
      A,
      `mutation ($q: uuid!) { update_quest_by_pk(pk_columns: {id: $q}, _set: {repetition: RECURRING}) { id } }`,
      {
        q: questA,
      },
    );
    expect(errorOf(refused)).toEqual({ code: "permission-error", message: "check constraint of an insert/update permission has failed" });
    const accepted = await platform.asPlayer(
      A,
      `mutation ($q: uuid!) { update_quest_by_pk(pk_columns: {id: $q}, _set: {repetition: RECURRING, cooldown: 3600}) { repetition cooldown } }`,
      { q: questA },
    );
    expect(ok(accepted)).toEqual({ update_quest_by_pk: { repetition: "RECURRING", cooldown: 3600 } });
  });

  it("changes an open quest only: once closed, it stays as it is", async () => {
    const close = `mutation ($q: uuid!) { update_quest_by_pk(pk_columns: {id: $q}, _set: {status: CLOSED}) { status } }`;
    expect(ok(await platform.asPlayer(B, close, { q: questB }))).toEqual({ update_quest_by_pk: { status: "CLOSED" } });
    expect(
      ok(
        await platform.asPlayer(B, `mutation ($q: uuid!) { update_quest_by_pk(pk_columns: {id: $q}, _set: {title: "again"}) { id } }`, {
          q: questB,
        }),
      ),
    ).toEqual({
      update_quest_by_pk: null,
    });
  });

  it("may not insert a quest without the backend's header: the insert is backend_only", async () => {
    const answer = await platform.asPlayer(A, `mutation ($g: uuid!) { insert_quest_one(object: {title: "mine", guildId: $g}) { id } }`, {
      g: GUILD,
    });
    expect(errorOf(answer)).toEqual({ code: "validation-failed", message: "field 'insert_quest_one' not found in type: 'mutation_root'" });
    expect(
      ok(await platform.admin<{ quest_aggregate: { aggregate: { count: number } } }>(`{ quest_aggregate { aggregate { count } } }`)),
    ).toEqual({
      quest_aggregate: { aggregate: { count: 2 } },
    });
  });
});

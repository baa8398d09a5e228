/**
 * The rows the web client's queries are run against: one player with a profile, an account, a
 * skill, a role, a guild membership, a DAO membership, a quest of theirs in a guild and a
 * completion of it, and the player as the guild's Discord creator. Inserted as admin through
 * GraphQL, so they go in as any client's rows would.
 */
import type { Engine } from "./engine.js";

export interface Fixture {
  playerId: string;
  address: string;
  username: string;
  /** The player's and the quest's role. */
  role: string;
  guildId: string;
  guildname: string;
  questId: string;
  completionId: string;
}

/** The fixture player's id, known up front: the role headers of the role schemas name it before the rows exist. */
export const FIXTURE_PLAYER_ID = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
const ADDRESS = "0x00000000000000000000000000000000acce9701";
const USERNAME = "acceptance-player";
const ROLE = "BUILDER";

async function admin<T>(engine: Engine, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const { status, body } = await engine.post("/v1/graphql", { query, variables });
  const answer = body as { data?: T; errors?: unknown };
  if (status !== 200 || answer.errors || !answer.data) throw new Error(`fixture: ${query.trim().split("\n")[0]}: ${JSON.stringify(body)}`);
  return answer.data;
}

export async function insertFixture(engine: Engine): Promise<Fixture> {
  const found = await admin<{
    guild: { id: string; guildname: string }[];
    skill: { id: string }[];
    dao: { id: string }[];
  }>(
    engine,
    `{
    guild(where: {metadata: {guildId: {_is_null: false}}}, order_by: {guildname: asc}, limit: 1) { id guildname }
    skill(order_by: {name: asc}, limit: 1) { id }
    dao(order_by: {contractAddress: asc}, limit: 1) { id }
  }`,
  );
  const guild = found.guild[0];
  const skill = found.skill[0];
  if (!guild || !skill) throw new Error("fixture: the project seeds no guild with Discord metadata, or no skill");
  await admin(
    engine,
    `mutation ($player: uuid!, $address: String!, $username: String!, $guild: uuid!, $skill: uuid!, $role: String!) {
      insert_player_one(object: {id: $player, ethereumAddress: $address}) { id }
      insert_profile_one(object: {playerId: $player, username: $username, name: "Acceptance", colorMask: 1, explorerTypeTitle: "Pioneer"}) { id }
      insert_player_account(objects: [{playerId: $player, type: DISCORD, identifier: "acceptance#0001"}]) { affected_rows }
      insert_player_skill_one(object: {player_id: $player, skill_id: $skill, rank: 1}) { id }
      insert_player_role_one(object: {player_id: $player, role: $role, rank: 1}) { role }
      insert_guild_player_one(object: {guildId: $guild, playerId: $player}) { guildId }
    }`,
    { player: FIXTURE_PLAYER_ID, address: ADDRESS, username: USERNAME, guild: guild.id, skill: skill.id, role: ROLE },
  );
  const dao = found.dao[0];
  if (dao)
    await admin(
      engine,
      `mutation ($dao: uuid!, $player: uuid!) { insert_dao_player_one(object: {daoId: $dao, playerId: $player, visible: true}) { daoId } }`,
      {
        dao: dao.id,
        player: FIXTURE_PLAYER_ID,
      },
    );
  const quest = await admin<{ insert_quest_one: { id: string } }>(
    engine,
    `mutation ($guild: uuid!, $player: uuid!, $skill: uuid!, $role: String!) {
      insert_quest_one(object: {guildId: $guild, createdByPlayerId: $player, title: "Acceptance quest", repetition: RECURRING, cooldown: 3600,
        quest_skills: {data: [{skillId: $skill}]}, quest_roles: {data: [{role: $role, rank: 1}]}}) { id }
    }`,
    { guild: guild.id, player: FIXTURE_PLAYER_ID, skill: skill.id, role: ROLE },
  );
  const questId = quest.insert_quest_one.id;
  const completion = await admin<{ insert_quest_completion_one: { id: string } }>(
    engine,
    `mutation ($quest: uuid!, $player: uuid!, $guild: uuid!) {
      insert_quest_completion_one(object: {questId: $quest, completedByPlayerId: $player, submissionText: "done"}) { id }
      update_guild_metadata(where: {guildId: {_eq: $guild}}, _set: {creatorId: $player}) { affected_rows }
    }`,
    { quest: questId, player: FIXTURE_PLAYER_ID, guild: guild.id },
  );
  return {
    playerId: FIXTURE_PLAYER_ID,
    address: ADDRESS,
    username: USERNAME,
    role: ROLE,
    guildId: guild.id,
    guildname: guild.guildname,
    questId,
    completionId: completion.insert_quest_completion_one.id,
  };
}

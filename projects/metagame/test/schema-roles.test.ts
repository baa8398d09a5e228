/**
 * The schemas of the roles `player` (a signed-in wallet) and `public` (a visitor) are the
 * release's: each readable table with exactly the permitted columns, relationships only to what
 * the role may read, remote relationships over readable columns; no trace of the enum tables but
 * their `*_enum` types; aggregates on player, player_skill, quest and skill only; `me` and
 * `guild_metadata` for players only; the mutations the permissions give, quest's insert for
 * backend requests only.
 */
import type { GraphQLSchema } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { ENUMS, expectedFields, type Role, TABLES } from "./support/schema-facts.js";
import { enumValues, fieldTypes, inputType, objectType, roleHeaders, schemaFor, sorted } from "./support/schema-introspection.js";
import { type RemoteStandIn, startRemoteStandIn } from "./support/schema-remote-stand-in.js";

const PLAYER_ID = "6d1b1c52-2a8e-4c4e-9a53-0d2f5e1f7a01";
const REMOTE_ROOT = [
  "getBrightIdStatus",
  "getDaoHausMemberships",
  "getDiscordServerMemberRoles",
  "getGuildDiscordAnnouncements",
  "getGuildDiscordRoles",
  "getPSeedInfo",
  "getTokenBalances",
  "getTopPSeedHolders",
];

let remote: RemoteStandIn;
let platform: TestPlatform;
const schemas = {} as Record<Role, GraphQLSchema>;

beforeAll(async () => {
  remote = await startRemoteStandIn();
  platform = await startPlatform({ engineEnv: { REMOTE_SCHEMA_ENDPOINT: remote.url } });
  schemas.player = await schemaFor(platform, roleHeaders("player", { "x-hasura-user-id": PLAYER_ID }));
  schemas.public = await schemaFor(platform, roleHeaders("public"));
});
afterAll(async () => {
  await platform?.close();
  await remote?.close();
});

const rootNames = (schema: GraphQLSchema, root: string) => sorted(Object.keys(objectType(schema, root).getFields()));

/** A readable table's select field, its _by_pk when the role may read every key column, its _aggregate when allowed. */
function selectRoots(role: Role, suffixes: string[] = []): string[] {
  const names: string[] = [];
  for (const [table, fact] of Object.entries(TABLES)) {
    const columns = fact.select?.[role];
    if (!columns) continue;
    names.push(table, ...suffixes.map((s) => `${table}${s}`));
    if (fact.primaryKey?.every((c) => columns.includes(c))) names.push(`${table}_by_pk`);
    if (fact.aggregations) names.push(`${table}_aggregate`);
  }
  return names;
}

describe.each(["player", "public"] as const)("role %s", (role) => {
  it("sees each table it may read with exactly its permitted columns and the relationships it may follow", () => {
    for (const [table, fact] of Object.entries(TABLES)) {
      const type = schemas[role].getType(table);
      if (!fact.select?.[role]) {
        expect([table, type]).toEqual([table, undefined]);
        continue;
      }
      expect([table, fieldTypes(objectType(schemas[role], table))]).toEqual([table, expectedFields(table, role)]);
      const columns = fact.columns.filter(([db]) => fact.select?.[role]?.includes(db)).map(([, field]) => field);
      expect([table, enumValues(schemas[role], `${table}_select_column`)]).toEqual([table, sorted(columns)]);
    }
  });

  it("has no trace of the enum tables but their *_enum types", () => {
    for (const table of [
      "AccountType",
      "GuildStatus",
      "PlayerRank",
      "QuestCompletionStatus",
      "QuestRepetition",
      "QuestStatus",
      "SkillCategory",
    ])
      expect([table, schemas[role].getType(table), schemas[role].getType(`${table}_bool_exp`)]).toEqual([table, undefined, undefined]);
    for (const [name, values] of Object.entries(ENUMS)) expect([name, enumValues(schemas[role], name)]).toEqual([name, values]);
  });

  it("queries the readable tables (aggregates where allowed), the async action's result and the remote schema", () => {
    expect(rootNames(schemas[role], "query_root")).toEqual(sorted([...selectRoots(role), "updateIDXProfile", ...REMOTE_ROOT]));
    expect(rootNames(schemas[role], "subscription_root")).toEqual(sorted([...selectRoots(role, ["_stream"]), "updateIDXProfile"]));
  });
});

describe("what each role may change", () => {
  it("gives a player the mutations of the release's permissions and actions", () => {
    const updates = (table: string, byPk = true) => [`update_${table}`, ...(byPk ? [`update_${table}_by_pk`] : []), `update_${table}_many`];
    const inserts = (table: string) => [`insert_${table}`, `insert_${table}_one`];
    const deletes = (table: string, byPk = true) => [`delete_${table}`, ...(byPk ? [`delete_${table}_by_pk`] : [])];
    expect(rootNames(schemas.player, "mutation_root")).toEqual(
      sorted([
        ...updates("dao"),
        ...updates("dao_player"),
        ...updates("player"),
        ...inserts("player_role"),
        ...updates("player_role"),
        ...deletes("player_role"),
        // A player may not read player_skill.id, its primary key: no _by_pk.
        ...inserts("player_skill"),
        ...deletes("player_skill", false),
        ...updates("profile"),
        ...updates("quest"),
        ...updates("quest_completion"),
        ...inserts("quest_role"),
        ...deletes("quest_role"),
        ...inserts("quest_skill"),
        ...deletes("quest_skill"),
        ...inserts("skill"),
        "authenticateDiscordGuild",
        "createQuest",
        "createQuestCompletion",
        "saveGuildInformation",
        "saveGuildLayout",
        "updateIDXProfile",
        "updateQuestCompletion",
      ]),
    );
  });

  it("gives a visitor only the Discord guild sign-in and the profile refresh", () => {
    expect(rootNames(schemas.public, "mutation_root")).toEqual(["authenticateDiscordGuild", "updateIDXProfile"]);
  });

  it("lets a player insert roles and skills without naming the player: the preset fills it", () => {
    expect(fieldTypes(inputType(schemas.player, "player_role_insert_input"))).toEqual({ rank: "Int", role: "String" });
    const skill = fieldTypes(inputType(schemas.player, "player_skill_insert_input"));
    expect(skill.skill_id).toBe("uuid");
    expect(skill.player_id).toBeUndefined();
  });

  it("offers quest's insert to backend requests only (x-hasura-use-backend-only-permissions with the admin secret)", async () => {
    expect(schemas.player.getMutationType()?.getFields().insert_quest).toBeUndefined();
    const backend = await schemaFor(
      platform,
      roleHeaders("player", { "x-hasura-user-id": PLAYER_ID, "x-hasura-use-backend-only-permissions": "true" }),
    );
    const fields = backend.getMutationType()?.getFields() ?? {};
    expect([fields.insert_quest?.name, fields.insert_quest_one?.name]).toEqual(["insert_quest", "insert_quest_one"]);
    // It grants no column: a quest could only come with its roles and skills, which a backend does not do.
    expect(sorted(Object.keys(inputType(backend, "quest_insert_input").getFields()))).toEqual(["quest_roles", "quest_skills"]);
  });
});

/**
 * The admin schema is the release's (MetaGame v1.0.2022-12-12, https://github.com/MetaFam/TheGame):
 * every tracked table's fields and types, the enum tables' `*_enum` types, the constraint and
 * select-column enums, the root fields, the actions with their custom types (the asynchronous
 * `updateIDXProfile` in all three roots), and the remote schema `backend`'s root fields, here
 * served by a stand-in with the release's remote root fields; and the release's event and cron
 * triggers kept in the metadata.
 */
import type { GraphQLSchema } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { ENUMS, expectedFields, TABLES } from "./support/schema-facts.js";
import {
  ADMIN_HEADERS,
  enumValues,
  fieldTypes,
  inputType,
  objectType,
  schemaFor,
  signature,
  sorted,
} from "./support/schema-introspection.js";
import { type RemoteStandIn, startRemoteStandIn } from "./support/schema-remote-stand-in.js";

let remote: RemoteStandIn;
let platform: TestPlatform;
let schema: GraphQLSchema;

beforeAll(async () => {
  remote = await startRemoteStandIn();
  platform = await startPlatform({ engineEnv: { REMOTE_SCHEMA_ENDPOINT: remote.url } });
  schema = await schemaFor(platform, ADMIN_HEADERS);
});
afterAll(async () => {
  await platform?.close();
  await remote?.close();
});

const rootSignatures = (root: "query_root" | "mutation_root" | "subscription_root") =>
  Object.fromEntries(Object.values(objectType(schema, root).getFields()).map((f) => [f.name, signature(f)]));

describe("the admin schema", () => {
  it("has the release's 27 tracked relations, each with its fields typed as the release types them", () => {
    expect(Object.keys(TABLES)).toHaveLength(27);
    for (const table of Object.keys(TABLES))
      expect([table, fieldTypes(objectType(schema, table))]).toEqual([table, expectedFields(table, "admin")]);
  });

  it("has the enum tables' *_enum types with their values", () => {
    for (const [name, values] of Object.entries(ENUMS)) expect([name, enumValues(schema, name)]).toEqual([name, values]);
  });

  it("names every primary key, unique constraint and unique index in *_constraint", () => {
    for (const [table, fact] of Object.entries(TABLES)) {
      if (!fact.constraints) continue;
      expect([table, enumValues(schema, `${table}_constraint`)]).toEqual([table, sorted(fact.constraints)]);
    }
    // The view has none: nothing to upsert on.
    expect(schema.getType("me_constraint")).toBeUndefined();
  });

  it("lists every column by its GraphQL name in *_select_column", () => {
    for (const [table, fact] of Object.entries(TABLES))
      expect([table, enumValues(schema, `${table}_select_column`)]).toEqual([table, sorted(fact.columns.map(([, field]) => field))]);
  });

  it("gives every table its select and aggregate root fields, and _by_pk only where there is a primary key", () => {
    const query = rootSignatures("query_root");
    const subscription = rootSignatures("subscription_root");
    for (const [table, fact] of Object.entries(TABLES)) {
      for (const roots of [query, subscription]) {
        expect(roots[table]).toBe(
          `${table}(distinct_on: [${table}_select_column!], limit: Int, offset: Int, order_by: [${table}_order_by!], where: ${table}_bool_exp): [${table}!]!`,
        );
        expect(roots[`${table}_aggregate`]).toMatch(new RegExp(`: ${table}_aggregate!$`));
        expect([table, roots[`${table}_by_pk`] !== undefined]).toEqual([table, fact.primaryKey !== undefined]);
      }
    }
    expect(query.player_account_by_pk).toBeUndefined();
    expect(query.profile_by_pk).toBe("profile_by_pk(id: uuid!): profile");
    expect(query.player_role_by_pk).toBe("player_role_by_pk(player_id: uuid!, role: String!): player_role");
  });

  it("gives every table its insert, update and delete fields, but the view me", () => {
    const mutation = rootSignatures("mutation_root");
    for (const [table, fact] of Object.entries(TABLES)) {
      const ops = ["delete_", "insert_", "update_"];
      const expected = table === "me" ? [] : ops.map((op) => `${op}${table}`);
      expect([table, sorted(Object.keys(mutation).filter((f) => ops.some((op) => f === `${op}${table}`)))]).toEqual([table, expected]);
      if (table === "me") continue;
      expect(mutation[`insert_${table}_one`]).toBeDefined();
      expect([table, mutation[`delete_${table}_by_pk`] !== undefined]).toEqual([table, fact.primaryKey !== undefined]);
    }
  });

  it("has the actions' mutations, and the asynchronous updateIDXProfile's result in query_root and subscription_root", () => {
    const mutation = rootSignatures("mutation_root");
    expect([
      mutation.authenticateDiscordGuild,
      mutation.createQuest,
      mutation.createQuestCompletion,
      mutation.updateQuestCompletion,
      mutation.saveGuildInformation,
      mutation.saveGuildLayout,
      mutation.updateIDXProfile,
      mutation.updateExpiredIDXProfiles,
    ]).toEqual([
      "authenticateDiscordGuild(code: String!): DiscordGuildAuthResponse",
      "createQuest(quest: CreateQuestInput!): CreateQuestOutput",
      "createQuestCompletion(questCompletion: CreateQuestCompletionInput!): CreateQuestCompletionOutput",
      "updateQuestCompletion(updateData: UpdateQuestCompletionInput!): UpdateQuestCompletionOutput",
      "saveGuildInformation(guildInformation: GuildInfoInput!): SaveGuildResponse",
      "saveGuildLayout(guildLayoutInfo: GuildLayoutInfoInput!): SaveGuildLayoutResponse",
      "updateIDXProfile(playerId: uuid): uuid!",
      "updateExpiredIDXProfiles: ExpiredPlayerProfiles",
    ]);
    // The two admin-only actions added to the metadata after the release are not there.
    expect(mutation.syncSourceCredAccounts).toBeUndefined();
    expect(mutation.syncAllGuildDiscordMembers).toBeUndefined();
    for (const root of ["query_root", "subscription_root"] as const)
      expect(rootSignatures(root).updateIDXProfile).toBe("updateIDXProfile(id: uuid!): updateIDXProfile");
    // Hasura v2 types the call's id and time non-null.
    expect(fieldTypes(objectType(schema, "updateIDXProfile"))).toEqual({
      id: "uuid!",
      created_at: "timestamptz!",
      errors: "json",
      output: "CacheProcessOutput",
    });
  });

  it("has the actions' input types, output types (with their relationships) and enums", () => {
    expect(fieldTypes(inputType(schema, "CreateQuestInput"))).toEqual({
      guildId: "uuid!",
      title: "String!",
      description: "String",
      externalLink: "String",
      repetition: "QuestRepetition_ActionEnum",
      cooldown: "Int",
      roleIds: "[uuid]!",
      skillIds: "[uuid]!",
      image: "String",
    });
    expect(fieldTypes(inputType(schema, "CreateQuestCompletionInput"))).toEqual({
      questId: "String!",
      submissionLink: "String",
      submissionText: "String",
    });
    expect(fieldTypes(inputType(schema, "UpdateQuestCompletionInput"))).toEqual({
      questCompletionId: "String!",
      status: "QuestCompletionStatus_ActionEnum!",
    });
    const url = "String";
    expect(fieldTypes(inputType(schema, "GuildInfoInput"))).toEqual({
      uuid: "String!",
      guildname: "String!",
      name: "String!",
      type: "GuildType_ActionEnum!",
      description: "String",
      discordInviteUrl: url,
      joinUrl: url,
      logoUrl: url,
      websiteUrl: url,
      twitterUrl: url,
      githubUrl: url,
      membershipThroughDiscord: "Boolean",
      discordAdminRoles: "[String]!",
      discordMembershipRoles: "[String]!",
      daos: "[GuildDaoInput!]",
    });
    expect(fieldTypes(inputType(schema, "GuildDaoInput"))).toEqual({
      contractAddress: "String!",
      network: "String!",
      label: "String",
      url: "String",
    });
    expect(fieldTypes(inputType(schema, "GuildLayoutInfoInput"))).toEqual({ uuid: "String!", profileLayout: "String!" });
    expect(fieldTypes(objectType(schema, "CreateQuestOutput"))).toEqual({
      success: "Boolean!",
      quest_id: "uuid",
      error: "String",
      quest: "quest",
    });
    for (const name of ["CreateQuestCompletionOutput", "UpdateQuestCompletionOutput"])
      expect(fieldTypes(objectType(schema, name))).toEqual({
        success: "Boolean!",
        error: "String",
        quest_completion_id: "uuid",
        quest_completion: "quest_completion",
      });
    expect(fieldTypes(objectType(schema, "CacheProcessOutput"))).toEqual({ success: "Boolean!", queued: "Boolean!", error: "String" });
    expect(fieldTypes(objectType(schema, "DiscordGuildAuthResponse"))).toEqual({
      success: "Boolean!",
      guildname: "String",
      exists: "Boolean",
      error: "String",
    });
    for (const name of ["SaveGuildResponse", "SaveGuildLayoutResponse"])
      expect(fieldTypes(objectType(schema, name))).toEqual({ success: "Boolean", error: "String" });
    expect(fieldTypes(objectType(schema, "ExpiredPlayerProfiles"))).toEqual({ ids: "[String]!" });
    expect(enumValues(schema, "QuestRepetition_ActionEnum")).toEqual(["PERSONAL", "RECURRING", "UNIQUE"]);
    expect(enumValues(schema, "QuestCompletionStatus_ActionEnum")).toEqual(["ACCEPTED", "REJECTED"]);
    expect(enumValues(schema, "GuildType_ActionEnum")).toEqual(["FUNDING", "PROJECT", "RESEARCH", "SERVICE", "SOCIAL"]);
  });

  it("merges the remote schema backend's root fields into query_root", () => {
    const query = rootSignatures("query_root");
    expect(
      [
        "getBrightIdStatus",
        "getDaoHausMemberships",
        "getTokenBalances",
        "getTopPSeedHolders",
        "getGuildDiscordRoles",
        "getDiscordServerMemberRoles",
        "getGuildDiscordAnnouncements",
        "getPSeedInfo",
      ].map((name) => query[name]),
    ).toEqual([
      "getBrightIdStatus(contextId: uuid): BrightIdStatus",
      "getDaoHausMemberships(memberAddress: String): [Member!]!",
      "getTokenBalances(address: String): TokenBalances",
      "getTopPSeedHolders(limit: Int): [TokenBalances!]",
      "getGuildDiscordRoles(guildDiscordId: String): [DiscordRole!]!",
      "getDiscordServerMemberRoles(guildId: uuid!, playerId: uuid!): [DiscordRole!]!",
      "getGuildDiscordAnnouncements(guildDiscordId: String): [String!]",
      "getPSeedInfo: PSeedInfo",
    ]);
  });

  it("keeps the release's event triggers and cron triggers in the metadata", async () => {
    const exported = (await platform.metadata("export_metadata")) as {
      sources: { tables: { table: { name: string }; event_triggers?: { name: string; definition: unknown; retry_conf: unknown }[] }[] }[];
      cron_triggers?: {
        name: string;
        webhook: string;
        schedule: string;
        retry_conf?: { timeout_seconds?: number; tolerance_seconds?: number };
      }[];
    };
    const events = Object.fromEntries(
      exported.sources.flatMap((s) =>
        s.tables.flatMap((t) => (t.event_triggers ?? []).map((e) => [`${t.table.name}.${e.name}`, e.definition])),
      ),
    );
    expect(events).toEqual({
      "guild.syncDiscordGuildMembers": {
        enable_manual: false,
        update: { columns: ["membership_through_discord", "discord_id", "status"] },
      },
      "player.cacheIDXProfile": { enable_manual: true, insert: { columns: "*" }, update: { columns: ["ethereum_address"] } },
      "player.playerRankUpdated": { enable_manual: false, update: { columns: ["rank"] } },
      "player_role.playerRoleChanged": { enable_manual: false, insert: { columns: "*" }, delete: { columns: "*" } },
    });
    const retries = exported.sources.flatMap((s) => s.tables.flatMap((t) => (t.event_triggers ?? []).map((e) => e.retry_conf)));
    for (const retry of retries) expect(retry).toEqual({ num_retries: 0, interval_sec: 10, timeout_sec: 60 });
    const crons = Object.fromEntries((exported.cron_triggers ?? []).map((c) => [c.name, [c.schedule, c.webhook]]));
    expect(crons).toEqual({
      migrateSourceCredLedger: ["0 1 * * *", "{{ACTION_BASE_ENDPOINT}}/migrateSourceCredAccounts"],
      queueExpiredIDXCacheEntries: ["0 3 * * *", "{{ACTION_BASE_ENDPOINT}}/idxCache/checkExpired"],
      syncAllGuildDiscordMembers: ["31 5 * * *", "{{ACTION_BASE_ENDPOINT}}/syncAllGuildDiscordMembers"],
    });
    // Re-caching every expired profile may take a while: ten minutes, six hours' tolerance.
    const expired = exported.cron_triggers?.find((c) => c.name === "queueExpiredIDXCacheEntries");
    expect([expired?.retry_conf?.timeout_seconds, expired?.retry_conf?.tolerance_seconds]).toEqual([600, 21600]);
  });
});

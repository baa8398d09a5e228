/**
 * What MetaGame's release v1.0.2022-12-12 (https://github.com/MetaFam/TheGame) serves, written
 * down for the schema tests: per tracked table its columns (database name, GraphQL name, GraphQL
 * type), relationships, remote relationships, unique/primary constraints and who may select what.
 * Restated from the release's published schema and metadata, not read from its files.
 */

export type Role = "player" | "public";

export interface RelationshipFact {
  target: string;
  /** An array relationship: `[target!]!` plus `<name>_aggregate`. Otherwise an object relationship of `type`. */
  array?: boolean;
  /** An object relationship's type: the target, non-null when its columns are. */
  type?: string;
}

export interface TableFact {
  /** [database column, GraphQL field, GraphQL type] */
  columns: [string, string, string][];
  relationships?: Record<string, RelationshipFact>;
  /** Remote relationships to the remote schema `backend`: field -> [type, the columns it reads]. */
  remote?: Record<string, [string, string[]]>;
  /** Names of `<table>_constraint` (primary key, unique constraints, unique indexes). */
  constraints?: string[];
  /** Columns (database names) each role may select; no entry, no select permission. */
  select?: Partial<Record<Role, string[]>>;
  /** allow_aggregations, for both roles. */
  aggregations?: boolean;
  /** Has a primary key (so `<table>_by_pk`). */
  primaryKey?: string[];
}

const object = (target: string, nonNull = true): RelationshipFact => ({ target, type: nonNull ? `${target}!` : target });
const array = (target: string): RelationshipFact => ({ target, array: true });
const both = (columns: string[]) => ({ player: columns, public: columns });
const lookup = (column: string, pkey: string, rels: Record<string, RelationshipFact> = {}): TableFact => ({
  columns: [[column, column, "String!"]],
  relationships: rels,
  constraints: [pkey],
  primaryKey: [column],
});

export const TABLES: Record<string, TableFact> = {
  AccountType: lookup("type", "AccountType_pkey"),
  ColorAspect: {
    columns: [
      ["mask", "mask", "Int!"],
      ["name", "name", "String!"],
      ["description", "description", "String"],
    ],
    relationships: { profiles: array("profile") },
    constraints: ["ColorAspect_name_key", "ColorAspect_pkey"],
    select: both(["description", "mask", "name"]),
    primaryKey: ["mask"],
  },
  ExplorerType: {
    columns: [
      ["id", "id", "Int!"],
      ["title", "title", "String!"],
      ["description", "description", "String!"],
      ["image_url", "imageURL", "String"],
    ],
    relationships: { profiles: array("profile") },
    constraints: ["PlayerType_pkey", "PlayerType_title_key"],
    select: both(["description", "id", "image_url", "title"]),
    primaryKey: ["id"],
  },
  GuildStatus: lookup("status", "GuildStatus_pkey"),
  GuildType: { ...lookup("name", "GuildType_pkey", { Guilds: array("guild") }), select: both(["name"]) },
  PlayerRank: lookup("rank", "Player_Rank_pkey"),
  PlayerRole: {
    columns: [
      ["role", "role", "String!"],
      ["label", "label", "String!"],
      ["description", "description", "String"],
      ["basic", "basic", "Boolean"],
    ],
    constraints: ["PlayerRole_pkey"],
    select: both(["basic", "description", "label", "role"]),
    primaryKey: ["role"],
  },
  QuestCompletionStatus: lookup("status", "QuestCompletionStatus_pkey", { quest_completions: array("quest_completion") }),
  QuestRepetition: lookup("repetition", "QuestRepetition_pkey", { quests: array("quest") }),
  QuestStatus: lookup("status", "QuestStatus_pkey", { quests: array("quest") }),
  SkillCategory: lookup("name", "SkillCategory_pkey"),
  dao: {
    columns: [
      ["id", "id", "uuid!"],
      ["contract_address", "contractAddress", "String!"],
      ["network", "network", "String!"],
      ["label", "label", "String"],
      ["url", "url", "String"],
      ["guild_id", "guildId", "uuid"],
    ],
    relationships: { guild: object("guild", false), players: array("dao_player") },
    constraints: ["dao_contract_address_network_key", "dao_pkey"],
    select: both(["contract_address", "guild_id", "id", "label", "network", "url"]),
    primaryKey: ["id"],
  },
  dao_player: {
    columns: [
      ["dao_id", "daoId", "uuid!"],
      ["player_id", "playerId", "uuid!"],
      ["visible", "visible", "Boolean"],
    ],
    relationships: { Dao: object("dao"), Player: object("player") },
    constraints: ["dao_player_pkey"],
    select: both(["dao_id", "player_id", "visible"]),
    primaryKey: ["dao_id", "player_id"],
  },
  guild: {
    columns: [
      ["id", "id", "uuid!"],
      ["type", "type", "GuildType_enum!"],
      ["name", "name", "String!"],
      ["logo", "logo", "String"],
      ["description", "description", "String"],
      ["join_button_url", "joinButtonUrl", "String"],
      ["website_url", "websiteUrl", "String"],
      ["guildname", "guildname", "String!"],
      ["discord_id", "discordId", "String"],
      ["status", "status", "GuildStatus_enum!"],
      ["membership_through_discord", "membershipThroughDiscord", "Boolean!"],
      ["show_discord_announcements", "showDiscordAnnouncements", "Boolean!"],
      ["profile_layout", "profileLayout", "String"],
      ["sort_position", "sortPosition", "Int"],
      ["discord_invite_url", "discordInviteUrl", "String"],
      ["twitter_url", "twitterUrl", "String"],
      ["github_url", "githubUrl", "String"],
    ],
    relationships: {
      GuildType: object("GuildType"),
      metadata: object("guild_metadata", false),
      daos: array("dao"),
      guild_players: array("guild_player"),
      quests: array("quest"),
    },
    remote: { discordAnnouncements: ["[String!]", ["discord_id"]] },
    constraints: ["Guild_guildname_key", "Guild_pkey", "guild_discord_id_key", "guild_sort_position_key"],
    select: both([
      "description",
      "discord_id",
      "discord_invite_url",
      "github_url",
      "guildname",
      "id",
      "join_button_url",
      "logo",
      "membership_through_discord",
      "name",
      "profile_layout",
      "show_discord_announcements",
      "sort_position",
      "status",
      "twitter_url",
      "type",
      "website_url",
    ]),
    primaryKey: ["id"],
  },
  guild_metadata: {
    columns: [
      ["guild_id", "guildId", "uuid!"],
      ["creator_id", "creatorId", "uuid"],
      ["discord_id", "discordId", "String!"],
      ["discord_metadata", "discordMetadata", "jsonb"],
    ],
    relationships: { guild: object("guild"), player: object("player", false) },
    remote: { discordRoles: ["[DiscordRole!]!", ["discord_id"]] },
    constraints: ["guild_metadata_pkey"],
    select: { player: ["creator_id", "discord_id", "discord_metadata", "guild_id"] },
    primaryKey: ["guild_id"],
  },
  guild_player: {
    columns: [
      ["guild_id", "guildId", "uuid!"],
      ["player_id", "playerId", "uuid!"],
    ],
    relationships: { Guild: object("guild"), Player: object("player") },
    remote: { discordRoles: ["[DiscordRole!]!", ["guild_id", "player_id"]] },
    constraints: ["guild_player_pkey"],
    select: both(["guild_id", "player_id"]),
    primaryKey: ["guild_id", "player_id"],
  },
  me: {
    columns: [
      ["id", "id", "uuid"],
      ["username", "username", "String"],
      ["ethereum_address", "ethereumAddress", "String"],
    ],
    relationships: { player: object("player", false) },
    select: { player: ["ethereum_address", "id", "username"] },
  },
  player: {
    columns: [
      ["id", "id", "uuid!"],
      ["ethereum_address", "ethereumAddress", "String!"],
      ["total_xp", "totalXP", "numeric"],
      ["role", "role", "String"],
      ["rank", "rank", "PlayerRank_enum"],
      ["created_at", "createdAt", "timestamptz"],
      ["updated_at", "updatedAt", "timestamptz"],
      ["discord_id", "discordId", "String"],
      ["season_xp", "seasonXP", "numeric!"],
      ["profile_layout", "profileLayout", "String"],
      ["dashboard_layout", "dashboardLayout", "String"],
    ],
    relationships: {
      accounts: array("player_account"),
      daos: array("dao_player"),
      guilds: array("guild_player"),
      profile: object("profile", false),
      quest_completions: array("quest_completion"),
      quests: array("quest"),
      roles: array("player_role"),
      skills: array("player_skill"),
    },
    remote: {
      brightid_status: ["BrightIdStatus", ["id"]],
      daohausMemberships: ["[Member!]!", ["ethereum_address"]],
      token_balances: ["TokenBalances", ["ethereum_address"]],
    },
    constraints: ["Player_ethereum_address_unique_key", "Player_pkey", "player_discord_id_key"],
    select: {
      player: ["created_at", "dashboard_layout", "ethereum_address", "id", "profile_layout", "rank", "role", "season_xp", "total_xp"],
      public: ["ethereum_address", "id", "profile_layout", "rank", "role", "season_xp", "total_xp"],
    },
    aggregations: true,
    primaryKey: ["id"],
  },
  player_account: {
    columns: [
      ["player_id", "playerId", "uuid!"],
      ["identifier", "identifier", "String!"],
      ["type", "type", "AccountType_enum!"],
    ],
    relationships: { Player: object("player") },
    constraints: ["Account_identifier_type_key"],
    select: both(["identifier", "player_id", "type"]),
  },
  player_role: {
    columns: [
      ["player_id", "player_id", "uuid!"],
      ["role", "role", "String!"],
      ["rank", "rank", "Int!"],
    ],
    relationships: { PlayerRole: object("PlayerRole") },
    constraints: ["player_role_pkey"],
    select: both(["player_id", "rank", "role"]),
    primaryKey: ["player_id", "role"],
  },
  player_skill: {
    columns: [
      ["player_id", "player_id", "uuid!"],
      ["skill_id", "skill_id", "uuid!"],
      ["rank", "rank", "Int"],
      ["id", "id", "uuid!"],
    ],
    relationships: { Skill: object("skill") },
    constraints: ["player_skill_pkey", "player_skill_player_id_skill_id_key"],
    select: both(["player_id", "skill_id"]),
    aggregations: true,
    primaryKey: ["id"],
  },
  profile: {
    columns: [
      ["name", "name", "String"],
      ["description", "description", "String"],
      ["location", "location", "String"],
      ["country_code", "countryCode", "String"],
      ["emoji", "emoji", "String"],
      ["profile_image_url", "profileImageURL", "String"],
      ["banner_image_url", "bannerImageURL", "String"],
      ["website", "website", "String"],
      ["gender", "gender", "String"],
      ["player_id", "playerId", "uuid!"],
      ["id", "id", "uuid!"],
      ["last_checked_at", "lastCheckedAt", "timestamptz"],
      ["pronouns", "pronouns", "String"],
      ["background_image_url", "backgroundImageURL", "String"],
      ["username", "username", "String"],
      ["available_hours", "availableHours", "Int"],
      ["time_zone", "timeZone", "String"],
      ["color_mask", "colorMask", "Int"],
      ["explorer_type_title", "explorerTypeTitle", "String"],
    ],
    relationships: { colorAspect: object("ColorAspect", false), explorerType: object("ExplorerType", false), player: object("player") },
    constraints: [
      "profile_cache_pkey",
      "profile_id_key",
      "profile_player_id_key",
      "profile_username_key",
      "username_insensitive_unique_idx",
    ],
    // Everything but last_checked_at.
    select: both([
      "available_hours",
      "background_image_url",
      "banner_image_url",
      "color_mask",
      "country_code",
      "description",
      "emoji",
      "explorer_type_title",
      "gender",
      "id",
      "location",
      "name",
      "player_id",
      "profile_image_url",
      "pronouns",
      "time_zone",
      "username",
      "website",
    ]),
    primaryKey: ["id"],
  },
  quest: {
    columns: [
      ["id", "id", "uuid!"],
      ["created_at", "createdAt", "timestamptz!"],
      ["guild_id", "guildId", "uuid!"],
      ["created_by_player_id", "createdByPlayerId", "uuid!"],
      ["title", "title", "String!"],
      ["description", "description", "String"],
      ["external_link", "externalLink", "String"],
      ["cooldown", "cooldown", "Int"],
      ["status", "status", "QuestStatus_enum!"],
      ["repetition", "repetition", "QuestRepetition_enum!"],
      ["image", "image", "String"],
    ],
    relationships: {
      QuestRepetition: object("QuestRepetition"),
      QuestStatus: object("QuestStatus"),
      guild: object("guild"),
      player: object("player"),
      quest_completions: array("quest_completion"),
      quest_roles: array("quest_role"),
      quest_skills: array("quest_skill"),
    },
    constraints: ["quest_pkey"],
    select: both([
      "cooldown",
      "created_at",
      "created_by_player_id",
      "description",
      "external_link",
      "guild_id",
      "id",
      "image",
      "repetition",
      "status",
      "title",
    ]),
    aggregations: true,
    primaryKey: ["id"],
  },
  quest_completion: {
    columns: [
      ["id", "id", "uuid!"],
      ["quest_id", "questId", "uuid!"],
      ["completed_by_player_id", "completedByPlayerId", "uuid!"],
      ["submitted_at", "submittedAt", "timestamptz!"],
      ["submission_text", "submissionText", "String"],
      ["submission_link", "submissionLink", "String"],
      ["status", "status", "QuestCompletionStatus_enum!"],
    ],
    relationships: {
      QuestCompletionStatus: object("QuestCompletionStatus"),
      completed: object("quest", false),
      player: object("player"),
      quest: object("quest"),
    },
    constraints: ["quest_completion_pkey"],
    select: both(["completed_by_player_id", "id", "quest_id", "status", "submission_link", "submission_text", "submitted_at"]),
    primaryKey: ["id"],
  },
  quest_role: {
    columns: [
      ["quest_id", "questId", "uuid!"],
      ["role", "role", "String!"],
      ["rank", "rank", "Int"],
    ],
    relationships: { PlayerRole: object("PlayerRole"), quest: object("quest") },
    constraints: ["quest_role_pkey"],
    select: both(["quest_id", "rank", "role"]),
    primaryKey: ["quest_id", "role"],
  },
  quest_skill: {
    columns: [
      ["quest_id", "questId", "uuid!"],
      ["skill_id", "skillId", "uuid!"],
    ],
    relationships: { quest: object("quest"), skill: object("skill") },
    constraints: ["quest_skill_pkey"],
    select: both(["quest_id", "skill_id"]),
    primaryKey: ["quest_id", "skill_id"],
  },
  skill: {
    columns: [
      ["id", "id", "uuid!"],
      ["name", "name", "String!"],
      ["category", "category", "SkillCategory_enum!"],
    ],
    relationships: { Player_Skills: array("player_skill"), quest_skills: array("quest_skill") },
    constraints: ["Skill_pkey"],
    select: both(["category", "id", "name"]),
    aggregations: true,
    primaryKey: ["id"],
  },
};

/** The enum tables' GraphQL enums and their values (sorted, as introspection lists them). */
export const ENUMS: Record<string, string[]> = {
  AccountType_enum: ["DISCORD", "DISCOURSE", "ETHEREUM", "GITHUB", "MEETWITHWALLET", "TWITTER"],
  GuildStatus_enum: ["ACTIVE", "INACTIVE", "PENDING"],
  GuildType_enum: ["FUNDING", "PROJECT", "RESEARCH", "SERVICE", "SOCIAL"],
  PlayerRank_enum: ["BRONZE", "DIAMOND", "GOLD", "PLATINUM", "SILVER"],
  QuestCompletionStatus_enum: ["ACCEPTED", "PENDING", "REJECTED"],
  QuestRepetition_enum: ["PERSONAL", "RECURRING", "UNIQUE"],
  QuestStatus_enum: ["CLOSED", "OPEN"],
  SkillCategory_enum: ["COMMUNITY", "DESIGN", "DEV", "ENGINEERING", "STRATEGY", "TECHNOLOGIES"],
};

/** The object type's fields a role sees: its selectable columns, relationships to what it may read, the remote relationships over its columns. */
export function expectedFields(table: string, role: Role | "admin"): Record<string, string> {
  const fact = TABLES[table] as TableFact;
  const columns = role === "admin" ? fact.columns.map(([db]) => db) : (fact.select?.[role] ?? []);
  const fields: Record<string, string> = {};
  for (const [db, field, type] of fact.columns) if (columns.includes(db)) fields[field] = type;
  for (const [name, rel] of Object.entries(fact.relationships ?? {})) {
    const target = TABLES[rel.target] as TableFact;
    if (role !== "admin" && !target.select?.[role]) continue;
    if (!rel.array) {
      fields[name] = rel.type as string;
      continue;
    }
    fields[name] = `[${rel.target}!]!`;
    if (role === "admin" || target.aggregations) fields[`${name}_aggregate`] = `${rel.target}_aggregate!`;
  }
  for (const [name, [type, lhs]] of Object.entries(fact.remote ?? {})) if (lhs.every((c) => columns.includes(c))) fields[name] = type;
  return fields;
}

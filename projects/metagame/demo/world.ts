/** The rows of the demo world, one interface per table, and the sizes it comes in. */

export interface DemoScale {
  players: number;
  /** Guilds added to the two the migrations seed. */
  guilds: number;
  quests: number;
  completions: number;
}

/** What a new user sees: a small, readable world. */
export const DEMO_SCALE: DemoScale = { players: 50, guilds: 4, quests: 48, completions: 150 };

/** The profile-page benchmark's size (bench/metagame-profile.ts). */
export const BENCH_SCALE: DemoScale = { players: 10_000, guilds: 40, quests: 50_000, completions: 200_000 };

export type QuestStatus = "OPEN" | "CLOSED";
export type QuestRepetition = "UNIQUE" | "PERSONAL" | "RECURRING";
export type CompletionStatus = "PENDING" | "ACCEPTED" | "REJECTED";

export interface PlayerRow {
  id: string;
  ethereumAddress: string;
  totalXp: number;
  seasonXp: number;
  rank: string | null;
  role: string | null;
  discordId: string | null;
  createdAt: string;
}

export interface ProfileRow {
  id: string;
  playerId: string;
  username: string;
  name: string;
  description: string;
  location: string;
  countryCode: string;
  emoji: string;
  profileImageUrl: string;
  bannerImageUrl: string;
  backgroundImageUrl: string | null;
  website: string | null;
  pronouns: string | null;
  availableHours: number;
  timeZone: string;
  colorMask: number;
  explorerTypeTitle: string;
}

export interface AccountRow {
  playerId: string;
  type: string;
  identifier: string;
}

export interface PlayerSkillRow {
  id: string;
  playerId: string;
  skillId: string;
}

export interface RankedRoleRow {
  /** player_role.player_id or quest_role.quest_id */
  ownerId: string;
  role: string;
  rank: number;
}

export interface GuildRow {
  id: string;
  guildname: string;
  name: string;
  type: string;
  description: string;
  logo: string;
  websiteUrl: string;
  discordId: string;
  status: "ACTIVE" | "PENDING";
  membershipThroughDiscord: boolean;
  sortPosition: number;
  discordInviteUrl: string;
  twitterUrl: string | null;
  githubUrl: string | null;
}

export interface GuildMetadataRow {
  guildId: string;
  creatorId: string;
  discordId: string;
  discordMetadata: string;
}

export interface DaoRow {
  id: string;
  contractAddress: string;
  network: string;
  label: string;
  url: string;
  guildId: string;
}

export interface MembershipRow {
  /** guild_player.guild_id or dao_player.dao_id */
  groupId: string;
  playerId: string;
  visible: boolean;
}

export interface QuestRow {
  id: string;
  createdAt: string;
  guildId: string;
  createdByPlayerId: string;
  title: string;
  description: string;
  externalLink: string | null;
  cooldown: number | null;
  status: QuestStatus;
  repetition: QuestRepetition;
  image: string | null;
}

export interface QuestSkillRow {
  questId: string;
  skillId: string;
}

export interface CompletionRow {
  id: string;
  questId: string;
  completedByPlayerId: string;
  submittedAt: string;
  submissionText: string | null;
  submissionLink: string | null;
  status: CompletionStatus;
}

export interface DemoWorld {
  players: PlayerRow[];
  profiles: ProfileRow[];
  accounts: AccountRow[];
  playerSkills: PlayerSkillRow[];
  playerRoles: RankedRoleRow[];
  guilds: GuildRow[];
  guildMetadata: GuildMetadataRow[];
  daos: DaoRow[];
  guildPlayers: MembershipRow[];
  daoPlayers: MembershipRow[];
  quests: QuestRow[];
  questRoles: RankedRoleRow[];
  questSkills: QuestSkillRow[];
  completions: CompletionRow[];
}

/** What the migrations already put in the database that the generator builds on. */
export interface SeededRows {
  /** skill ids, ordered by name (the migrations give them random ids). */
  skillIds: string[];
  /** The seeded DAOs (random ids), with their guild. */
  daos: Array<{ id: string; guildId: string | null }>;
}

/**
 * Loads the demo world into a project database that has no players yet, in one transaction.
 * Each table is written set-wise: one `INSERT ... SELECT FROM unnest($1::uuid[], $2::text[], ...)`
 * per chunk of rows, one array parameter per column, so the statement count does not grow with
 * the rows (PGlite loads the demo size in a fraction of a second, PostgreSQL the benchmark size
 * in seconds).
 */
import { type Database, ident, join, type Queryable, type Sql, sql, trusted } from "@platform/core";
import { DEMO_SEED, generateDemoWorld } from "./generate.js";
import { BENCH_SCALE, DEMO_SCALE, type DemoScale, type DemoWorld, type SeededRows } from "./world.js";

export interface LoadDemoOptions {
  /** `demo` (default: 50 players), `bench` (10,000 players, 50,000 quests, 200,000 completions) or explicit sizes. */
  scale?: "demo" | "bench" | DemoScale;
  seed?: number;
}

/** Column types this loader binds, as SQL array casts. */
type ColumnType = "uuid" | "text" | "integer" | "numeric" | "boolean" | "timestamptz" | "jsonb";
type Column<Row> = readonly [name: string, type: ColumnType, value: (row: Row) => unknown];

interface TableLoad<Row> {
  table: string;
  rows: (world: DemoWorld) => readonly Row[];
  columns: ReadonlyArray<Column<Row>>;
}

/** Rows per INSERT: big enough that statements are few, small enough to keep each array parameter a few MB. */
const CHUNK = 20_000;
/** Serialises two loaders started at once (two instances on one database): the second then finds players. */
const LOCK_KEY = 0x6d676465; // "mgde"

function table<Row>(load: TableLoad<Row>): TableLoad<unknown> {
  return load as TableLoad<unknown>;
}

/** In foreign-key order. */
const TABLES: ReadonlyArray<TableLoad<unknown>> = [
  table({
    table: "player",
    rows: (w) => w.players,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["ethereum_address", "text", (r) => r.ethereumAddress],
      ["total_xp", "numeric", (r) => r.totalXp],
      ["season_xp", "numeric", (r) => r.seasonXp],
      ["rank", "text", (r) => r.rank],
      ["role", "text", (r) => r.role],
      ["discord_id", "text", (r) => r.discordId],
      ["created_at", "timestamptz", (r) => r.createdAt],
      ["updated_at", "timestamptz", (r) => r.createdAt],
    ],
  }),
  table({
    table: "profile",
    rows: (w) => w.profiles,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["player_id", "uuid", (r) => r.playerId],
      ["username", "text", (r) => r.username],
      ["name", "text", (r) => r.name],
      ["description", "text", (r) => r.description],
      ["location", "text", (r) => r.location],
      ["country_code", "text", (r) => r.countryCode],
      ["emoji", "text", (r) => r.emoji],
      ["profile_image_url", "text", (r) => r.profileImageUrl],
      ["banner_image_url", "text", (r) => r.bannerImageUrl],
      ["background_image_url", "text", (r) => r.backgroundImageUrl],
      ["website", "text", (r) => r.website],
      ["pronouns", "text", (r) => r.pronouns],
      ["available_hours", "integer", (r) => r.availableHours],
      ["time_zone", "text", (r) => r.timeZone],
      ["color_mask", "integer", (r) => r.colorMask],
      ["explorer_type_title", "text", (r) => r.explorerTypeTitle],
    ],
  }),
  table({
    table: "player_account",
    rows: (w) => w.accounts,
    columns: [
      ["player_id", "uuid", (r) => r.playerId],
      ["type", "text", (r) => r.type],
      ["identifier", "text", (r) => r.identifier],
    ],
  }),
  table({
    table: "player_skill",
    rows: (w) => w.playerSkills,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["player_id", "uuid", (r) => r.playerId],
      ["skill_id", "uuid", (r) => r.skillId],
    ],
  }),
  table({
    table: "player_role",
    rows: (w) => w.playerRoles,
    columns: [
      ["player_id", "uuid", (r) => r.ownerId],
      ["role", "text", (r) => r.role],
      ["rank", "integer", (r) => r.rank],
    ],
  }),
  table({
    table: "guild",
    rows: (w) => w.guilds,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["guildname", "text", (r) => r.guildname],
      ["name", "text", (r) => r.name],
      ["type", "text", (r) => r.type],
      ["description", "text", (r) => r.description],
      ["logo", "text", (r) => r.logo],
      ["website_url", "text", (r) => r.websiteUrl],
      ["discord_id", "text", (r) => r.discordId],
      ["status", "text", (r) => r.status],
      ["membership_through_discord", "boolean", (r) => r.membershipThroughDiscord],
      ["sort_position", "integer", (r) => r.sortPosition],
      ["discord_invite_url", "text", (r) => r.discordInviteUrl],
      ["twitter_url", "text", (r) => r.twitterUrl],
      ["github_url", "text", (r) => r.githubUrl],
    ],
  }),
  table({
    table: "guild_metadata",
    rows: (w) => w.guildMetadata,
    columns: [
      ["guild_id", "uuid", (r) => r.guildId],
      ["creator_id", "uuid", (r) => r.creatorId],
      ["discord_id", "text", (r) => r.discordId],
      ["discord_metadata", "jsonb", (r) => r.discordMetadata],
    ],
  }),
  table({
    table: "dao",
    rows: (w) => w.daos,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["contract_address", "text", (r) => r.contractAddress],
      ["network", "text", (r) => r.network],
      ["label", "text", (r) => r.label],
      ["url", "text", (r) => r.url],
      ["guild_id", "uuid", (r) => r.guildId],
    ],
  }),
  table({
    table: "guild_player",
    rows: (w) => w.guildPlayers,
    columns: [
      ["guild_id", "uuid", (r) => r.groupId],
      ["player_id", "uuid", (r) => r.playerId],
    ],
  }),
  table({
    table: "dao_player",
    rows: (w) => w.daoPlayers,
    columns: [
      ["dao_id", "uuid", (r) => r.groupId],
      ["player_id", "uuid", (r) => r.playerId],
      ["visible", "boolean", (r) => r.visible],
    ],
  }),
  table({
    table: "quest",
    rows: (w) => w.quests,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["created_at", "timestamptz", (r) => r.createdAt],
      ["guild_id", "uuid", (r) => r.guildId],
      ["created_by_player_id", "uuid", (r) => r.createdByPlayerId],
      ["title", "text", (r) => r.title],
      ["description", "text", (r) => r.description],
      ["external_link", "text", (r) => r.externalLink],
      ["cooldown", "integer", (r) => r.cooldown],
      ["status", "text", (r) => r.status],
      ["repetition", "text", (r) => r.repetition],
      ["image", "text", (r) => r.image],
    ],
  }),
  table({
    table: "quest_role",
    rows: (w) => w.questRoles,
    columns: [
      ["quest_id", "uuid", (r) => r.ownerId],
      ["role", "text", (r) => r.role],
      ["rank", "integer", (r) => r.rank],
    ],
  }),
  table({
    table: "quest_skill",
    rows: (w) => w.questSkills,
    columns: [
      ["quest_id", "uuid", (r) => r.questId],
      ["skill_id", "uuid", (r) => r.skillId],
    ],
  }),
  table({
    table: "quest_completion",
    rows: (w) => w.completions,
    columns: [
      ["id", "uuid", (r) => r.id],
      ["quest_id", "uuid", (r) => r.questId],
      ["completed_by_player_id", "uuid", (r) => r.completedByPlayerId],
      ["submitted_at", "timestamptz", (r) => r.submittedAt],
      ["submission_text", "text", (r) => r.submissionText],
      ["submission_link", "text", (r) => r.submissionLink],
      ["status", "text", (r) => r.status],
    ],
  }),
];

export function resolveScale(scale: LoadDemoOptions["scale"]): DemoScale {
  if (scale === undefined || scale === "demo") return DEMO_SCALE;
  if (scale === "bench") return BENCH_SCALE;
  return scale;
}

async function insertAll(tx: Queryable, load: TableLoad<unknown>, rows: readonly unknown[]): Promise<void> {
  const names = join(load.columns.map(([name]) => sql`${ident(name)}`));
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    // The types are this file's constants, never input: trusted() is safe here.
    const arrays: Sql[] = load.columns.map(([, type, value]) => sql`${chunk.map(value)}::${trusted(type)}[]`);
    await tx.query(sql`INSERT INTO ${ident("public", load.table)} (${names}) SELECT * FROM unnest(${join(arrays)})`);
  }
}

async function seededRows(tx: Queryable): Promise<SeededRows> {
  const skills = await tx.query<{ id: string }>(sql`SELECT id FROM public.skill ORDER BY name, id`);
  const daos = await tx.query<{ id: string; guild_id: string | null }>(
    sql`SELECT id, guild_id FROM public.dao ORDER BY contract_address, network`,
  );
  return { skillIds: skills.rows.map((r) => r.id), daos: daos.rows.map((r) => ({ id: r.id, guildId: r.guild_id })) };
}

/**
 * Loads the demo world when the project has no players yet; returns whether it loaded. The
 * project's migrations must have been applied (the engine applies them at start-up).
 */
export async function loadDemoData(db: Database, options: LoadDemoOptions = {}): Promise<boolean> {
  const scale = resolveScale(options.scale);
  return db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    const { rows } = await tx.query<{ taken: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM public.player) AS taken`);
    if (rows[0]?.taken) return false;
    // Loaded as the platform's admin: the rows' event triggers record this session (as for an
    // admin's mutation through the engine), and MetaGame's trigger handlers accept only admin events.
    await tx.query(sql`SELECT set_config('hasura.user', ${JSON.stringify({ "x-hasura-role": "admin" })}, true)`);
    const world = generateDemoWorld(scale, await seededRows(tx), options.seed ?? DEMO_SEED);
    for (const load of TABLES) await insertAll(tx, load, load.rows(world));
    // Fresh statistics, so the first queries on a big world get plans for its real size.
    await tx.query(sql`ANALYZE ${join(TABLES.map((t) => sql`${ident("public", t.table)}`))}`);
    return true;
  });
}

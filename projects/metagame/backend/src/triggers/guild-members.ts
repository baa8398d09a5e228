/**
 * A guild's members kept in step with its Discord server (MetaGame's
 * packages/backend/src/handlers/triggers/syncDiscordGuildMembers.ts): for a guild whose
 * membership goes through Discord, the players holding one of the guild's membership roles
 * (guild_metadata.discord_metadata.membershipRoleIds) in its server are its members. A guild
 * that is not ACTIVE loses all its members. The database work goes through the engine as admin,
 * the removals and additions in one mutation (one transaction); Discord is only asked when a bot
 * token is configured.
 */
import { errors } from "../errors.js";
import type { Row, TriggerContext } from "./payload.js";
import { text } from "./payload.js";

export interface GuildRow {
  id: string;
  name: string | null;
  discordId: string | null;
  membershipThroughDiscord: boolean;
  status: string;
}

export interface SyncOutcome {
  guildId: string;
  /** Why nothing was synced, when nothing was. */
  skipped?: string;
  added: number;
  removed: number;
}

/** A guild row of an event (raw column names). */
export function guildFromRow(row: Row): GuildRow | null {
  const id = text(row, "id");
  if (!id) return null;
  return {
    id,
    name: text(row, "name"),
    discordId: text(row, "discord_id"),
    membershipThroughDiscord: row.membership_through_discord === true,
    status: text(row, "status") ?? "ACTIVE",
  };
}

const skip = (guildId: string, skipped: string): SyncOutcome => ({ guildId, skipped, added: 0, removed: 0 });

async function membershipRoles(context: TriggerContext, guildId: string): Promise<string[] | null> {
  const { guild_metadata } = await context.deps.engine.request<{ guild_metadata: Array<{ discordMetadata: unknown }> }>(
    "query Metadata($id: uuid!) { guild_metadata(where: {guildId: {_eq: $id}}) { discordMetadata } }",
    { id: guildId },
  );
  const metadata = guild_metadata[0]?.discordMetadata;
  if (metadata === null || typeof metadata !== "object") return null;
  const roles = (metadata as { membershipRoleIds?: unknown }).membershipRoleIds;
  return Array.isArray(roles) ? roles.filter((id): id is string => typeof id === "string") : [];
}

export async function syncGuildMembers(guild: GuildRow, context: TriggerContext): Promise<SyncOutcome> {
  const { engine } = context.deps;
  if (!guild.discordId) return skip(guild.id, "the guild has no Discord server");
  if (!guild.membershipThroughDiscord) return skip(guild.id, "membership does not go through Discord");
  const roles = await membershipRoles(context, guild.id);
  if (roles === null) return skip(guild.id, "the guild has no Discord metadata");
  if (roles.length === 0) return skip(guild.id, "the guild names no membership role");

  if (guild.status !== "ACTIVE") {
    const { delete_guild_player } = await engine.request<{ delete_guild_player: { affected_rows: number } }>(
      "mutation RemoveAll($id: uuid!) { delete_guild_player(where: {guildId: {_eq: $id}}) { affected_rows } }",
      { id: guild.id },
    );
    return { guildId: guild.id, added: 0, removed: delete_guild_player.affected_rows };
  }

  if (!context.discord) {
    context.log.info({ guildId: guild.id }, "Discord is not configured: guild members not synced");
    return skip(guild.id, "Discord is not configured");
  }
  const wanted = new Set(
    (await context.discord.members(guild.discordId))
      .filter((member) => member.roles.some((role) => roles.includes(role)))
      .flatMap((member) => (member.user?.id ? [member.user.id] : [])),
  );

  const { guild_player } = await engine.request<{ guild_player: Array<{ Player: { discordId: string | null } }> }>(
    "query Members($id: uuid!) { guild_player(where: {guildId: {_eq: $id}}) { Player { discordId } } }",
    { id: guild.id },
  );
  const current = new Set(guild_player.flatMap((member) => (member.Player.discordId ? [member.Player.discordId] : [])));
  const toRemove = [...current].filter((id) => !wanted.has(id));
  const toAdd = [...wanted].filter((id) => !current.has(id));

  const { player } = await engine.request<{ player: Array<{ id: string }> }>(
    "query Players($ids: [String!]!) { player(where: {discordId: {_in: $ids}}) { id } }",
    { ids: toAdd },
  );
  // MetaGame's removal matched the Discord ids in every guild; it is limited to this guild here.
  const result = await engine.request<{ delete_guild_player: { affected_rows: number }; insert_guild_player: { affected_rows: number } }>(
    `mutation Sync($id: uuid!, $remove: [String!]!, $add: [guild_player_insert_input!]!) {
      delete_guild_player(where: {guildId: {_eq: $id}, Player: {discordId: {_in: $remove}}}) { affected_rows }
      insert_guild_player(objects: $add, on_conflict: {constraint: guild_player_pkey, update_columns: []}) { affected_rows }
    }`,
    { id: guild.id, remove: toRemove, add: player.map((p) => ({ guildId: guild.id, playerId: p.id })) },
  );
  const outcome = { guildId: guild.id, added: result.insert_guild_player.affected_rows, removed: result.delete_guild_player.affected_rows };
  if (outcome.added + outcome.removed > 0) context.log.info({ ...outcome, guild: guild.name }, "guild members synced from Discord");
  return outcome;
}

/** The daily cron: every ACTIVE guild whose membership goes through Discord; the others still run when one fails. */
export async function syncAllGuilds(context: TriggerContext): Promise<SyncOutcome[]> {
  const { guild } = await context.deps.engine.request<{ guild: GuildRow[] }>(
    `query Guilds { guild(where: {status: {_eq: ACTIVE}, membershipThroughDiscord: {_eq: true}}, order_by: {id: asc}) {
      id name discordId membershipThroughDiscord status
    } }`,
  );
  const settled = await Promise.allSettled(guild.map((g) => syncGuildMembers(g, context)));
  const failed = settled.flatMap((s, i) => (s.status === "rejected" ? [`${guild[i]?.id}: ${(s.reason as Error).message}`] : []));
  if (failed.length > 0) throw errors.upstream(`syncing guild members failed for ${failed.join("; ")}`);
  return settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
}

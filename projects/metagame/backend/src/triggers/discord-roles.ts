/**
 * Players' MetaGame rank and roles mirrored as roles in the MetaFam Discord server (MetaGame's
 * packages/backend/src/handlers/triggers/playerRankUpdated.ts and playerRoleChanged.ts). The
 * server's role ids are in the MetaFam guild's metadata (discord_metadata.rankRoleIds: rank ->
 * role id, playerRoles: role -> role id). MetaGame acts only in production; here, only when a
 * Discord bot is configured. A player without a Discord id, or not in the server, is skipped.
 */
import type { DiscordApi } from "../remote/discord-rest.js";
import type { EventPayload, TriggerContext, TriggerOutcome } from "./payload.js";
import { text } from "./payload.js";

/** The MetaFam Discord server (MetaGame's Constants.METAFAM_DISCORD_GUILD_ID; the seeded metafam guild's discord_id). */
export const METAFAM_DISCORD_SERVER = "629411177947987986";
/** Its props channel, where promotions are announced (MetaGame's Constants.METAFAM_DISCORD_PROPS_CHANNEL_ID). */
export const METAFAM_PROPS_CHANNEL = "718557002221224037";
/** PlayerRank from highest to lowest. */
export const RANKS = ["DIAMOND", "PLATINUM", "GOLD", "SILVER", "BRONZE"];

type RoleMap = Record<string, string>;

async function metafamRoleMaps(context: TriggerContext): Promise<{ rankRoleIds: RoleMap; playerRoles: RoleMap }> {
  const { guild } = await context.deps.engine.request<{ guild: Array<{ metadata: { discordMetadata: unknown } | null }> }>(
    "query Metafam($server: String!) { guild(where: {discordId: {_eq: $server}}) { metadata { discordMetadata } } }",
    { server: METAFAM_DISCORD_SERVER },
  );
  const metadata = (guild[0]?.metadata?.discordMetadata ?? {}) as Record<string, unknown>;
  const map = (value: unknown): RoleMap =>
    Object.fromEntries(Object.entries(value !== null && typeof value === "object" ? value : {}).filter(([, id]) => typeof id === "string"));
  return { rankRoleIds: map(metadata.rankRoleIds), playerRoles: map(metadata.playerRoles) };
}

const skipped = (message: string): TriggerOutcome => ({ message: `skipped: ${message}` });

function discordOrSkip(context: TriggerContext, what: string): DiscordApi | null {
  if (!context.discord) context.log.info(`Discord is not configured: ${what} skipped`);
  return context.discord;
}

/** Whether `next` is a higher rank than `previous` (any rank is higher than none). */
export function isRankHigher(previous: string | null, next: string | null): boolean {
  if (next === null || !RANKS.includes(next)) return false;
  if (previous === null || !RANKS.includes(previous)) return true;
  return RANKS.indexOf(next) < RANKS.indexOf(previous);
}

/**
 * `playerRankUpdated` (player UPDATE of rank): the member loses the other rank roles and gets the
 * new rank's; a promotion is announced in the props channel. A player who drops out of the ranks
 * loses the rank roles (MetaGame left them in place).
 */
export async function playerRankUpdated(payload: EventPayload, context: TriggerContext): Promise<TriggerOutcome> {
  const { old: before, new: after } = payload.event.data;
  if (!after) return skipped("no new row");
  const discord = discordOrSkip(context, "rank role update");
  if (!discord) return skipped("Discord is not configured");
  const discordId = text(after, "discord_id");
  if (!discordId) return skipped("the player has no Discord id");
  const rank = text(after, "rank");
  const { rankRoleIds } = await metafamRoleMaps(context);
  const member = await discord.member(METAFAM_DISCORD_SERVER, discordId);
  if (!member) return skipped("the player is not in the MetaFam server");

  const target = rank ? rankRoleIds[rank] : undefined;
  if (rank && !target) context.log.warn({ rank }, "no Discord role for this rank");
  const removed = Object.values(rankRoleIds).filter((id) => id !== target && member.roles.includes(id));
  for (const id of removed) await discord.removeRole(METAFAM_DISCORD_SERVER, discordId, id);
  const added = target && !member.roles.includes(target) ? [target] : [];
  for (const id of added) await discord.addRole(METAFAM_DISCORD_SERVER, discordId, id);

  if (target && isRankHigher(text(before, "rank"), rank)) {
    // The promotion is news, not the point of the event: a failure to post it is only logged.
    await discord
      .sendMessage(METAFAM_PROPS_CHANNEL, `<@${discordId}> has risen to ${rank}. Congratulations!`)
      .catch((error: unknown) => context.log.warn({ err: error }, "could not announce a promotion"));
  }
  return { message: "rank roles updated", added, removed };
}

/** `playerRoleChanged` (player_role INSERT / DELETE): the matching Discord role is added or removed. */
export async function playerRoleChanged(payload: EventPayload, context: TriggerContext): Promise<TriggerOutcome> {
  const { old: before, new: after } = payload.event.data;
  const playerId = text(after, "player_id") ?? text(before, "player_id");
  if (!playerId) return skipped("no player in the event");
  const discord = discordOrSkip(context, "player role update");
  if (!discord) return skipped("Discord is not configured");
  const { player_by_pk } = await context.deps.engine.request<{ player_by_pk: { discordId: string | null } | null }>(
    "query Player($id: uuid!) { player_by_pk(id: $id) { discordId } }",
    { id: playerId },
  );
  const discordId = player_by_pk?.discordId;
  if (!discordId) return skipped("the player has no Discord id");
  const adding = before === null && after !== null;
  const role = text(adding ? after : before, "role");
  const { playerRoles } = await metafamRoleMaps(context);
  const roleId = role ? playerRoles[role] : undefined;
  if (!roleId) return skipped(`no Discord role for ${role ?? "this role"}`);
  if (!(await discord.member(METAFAM_DISCORD_SERVER, discordId))) return skipped("the player is not in the MetaFam server");
  if (adding) await discord.addRole(METAFAM_DISCORD_SERVER, discordId, roleId);
  else await discord.removeRole(METAFAM_DISCORD_SERVER, discordId, roleId);
  return { message: adding ? "role added" : "role removed", roleId };
}

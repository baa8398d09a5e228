/**
 * The Discord fields of the remote schema, as MetaGame's
 * packages/backend/src/handlers/remote-schemas/resolvers/discord/resolver.ts answers them, over
 * Discord's REST API instead of discord.js. Without a bot token each answers its empty value.
 * Roles come back most significant (highest position) first, as discord.js' cache lists them.
 */
import type { RemoteContext } from "./context.js";
import { ANNOUNCEMENT_CHANNEL, type DiscordApi, type DiscordRoleObject, isSnowflake } from "./discord-rest.js";
import { ProviderError } from "./http-json.js";

export interface DiscordRole {
  id: string;
  position: number;
  name: string;
}

/** Announcements shown per guild, as MetaGame shows them. */
export const ANNOUNCEMENTS = 10;

const byPosition = (a: DiscordRole, b: DiscordRole) => b.position - a.position;
const toRole = (role: DiscordRoleObject): DiscordRole => ({ id: role.id, position: role.position, name: role.name });

function serverRoles(discord: DiscordApi, context: RemoteContext, guildDiscordId: string): Promise<DiscordRole[]> {
  return context.memo(`discord-roles:${guildDiscordId}`, async () =>
    (await discord.guildRoles(guildDiscordId)).map(toRole).sort(byPosition),
  );
}

export async function getGuildDiscordRoles(guildDiscordId: string | null | undefined, context: RemoteContext): Promise<DiscordRole[]> {
  if (!guildDiscordId || !context.discord) return [];
  if (!isSnowflake(guildDiscordId)) throw new ProviderError("Discord", `"${guildDiscordId}" is not a Discord server id`);
  return serverRoles(context.discord, context, guildDiscordId);
}

interface DiscordIds {
  guild_by_pk: { discordId: string | null } | null;
  player_by_pk: { discordId: string | null } | null;
}

/** The player's roles in the guild's server; empty when either has no Discord id or the player is not in the server. */
export async function getDiscordServerMemberRoles(guildId: string, playerId: string, context: RemoteContext): Promise<DiscordRole[]> {
  const discord = context.discord;
  if (!discord) return [];
  const ids = await context.deps.engine.request<DiscordIds>(
    "query DiscordIds($guildId: uuid!, $playerId: uuid!) { guild_by_pk(id: $guildId) { discordId } player_by_pk(id: $playerId) { discordId } }",
    { guildId, playerId },
  );
  const server = ids.guild_by_pk?.discordId;
  const user = ids.player_by_pk?.discordId;
  if (!server || !user) return [];
  const member = await discord.member(server, user);
  if (!member) return [];
  const held = new Set(member.roles);
  return (await serverRoles(discord, context, server)).filter((role) => held.has(role.id));
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * A message's text as HTML, as MetaGame's client renders announcements: paragraphs and line
 * breaks, everything else escaped. MetaGame converted Discord's markdown with showdown, which
 * passes raw HTML through; escaping keeps a server's messages from injecting markup.
 */
export function announcementHtml(content: string): string {
  const escaped = content.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
  return escaped
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => `<p>${paragraph.replace(/\n/g, "<br />\n")}</p>`)
    .join("\n");
}

/** The latest messages of the server's announcement channels; empty on any failure (logged), as MetaGame's. */
export async function getGuildDiscordAnnouncements(guildDiscordId: string | null | undefined, context: RemoteContext): Promise<string[]> {
  const discord = context.discord;
  if (!guildDiscordId || !discord) return [];
  try {
    if (!isSnowflake(guildDiscordId)) throw new ProviderError("Discord", `"${guildDiscordId}" is not a Discord server id`);
    const channels = (await discord.channels(guildDiscordId)).filter((channel) => channel.type === ANNOUNCEMENT_CHANNEL);
    const perChannel = await Promise.all(channels.map((channel) => discord.messages(channel.id, ANNOUNCEMENTS)));
    return perChannel
      .flat()
      .sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))
      .slice(0, ANNOUNCEMENTS)
      .map((message) => announcementHtml(message.content));
  } catch (error) {
    context.log.warn({ err: error, guildDiscordId }, "could not read Discord announcements");
    return [];
  }
}

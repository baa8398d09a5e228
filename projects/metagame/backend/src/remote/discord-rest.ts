/**
 * The few Discord REST calls MetaGame's bot makes through discord.js, made directly with the
 * bot token (https://discord.com/developers/docs/reference#authentication): a server's roles,
 * members and announcement channels' messages, and adding/removing a member's role. Ids in
 * paths are checked to be snowflakes first, since some come from GraphQL arguments.
 */
import type { BackendConfig } from "../config.js";
import { ProviderError, requestJson } from "./http-json.js";

export interface DiscordRoleObject {
  id: string;
  name: string;
  position: number;
}

export interface DiscordMember {
  user?: { id: string };
  roles: string[];
}

export interface DiscordChannel {
  id: string;
  type: number;
}

export interface DiscordMessage {
  id: string;
  content: string;
  timestamp: string;
}

/** Channel type 5: an announcement ("news") channel, GUILD_NEWS in discord.js v13. */
export const ANNOUNCEMENT_CHANNEL = 5;

/** Discord's page size for listing a server's members. */
const MEMBERS_PAGE = 1000;

export const isSnowflake = (value: unknown): value is string => typeof value === "string" && /^\d{1,25}$/.test(value);

export interface DiscordApi {
  guildRoles(guildId: string): Promise<DiscordRoleObject[]>;
  /** The member, or null when the user is not in the server. */
  member(guildId: string, userId: string): Promise<DiscordMember | null>;
  /** Every member of the server (the bot needs the Server Members intent). */
  members(guildId: string): Promise<DiscordMember[]>;
  channels(guildId: string): Promise<DiscordChannel[]>;
  messages(channelId: string, limit: number): Promise<DiscordMessage[]>;
  addRole(guildId: string, userId: string, roleId: string): Promise<void>;
  removeRole(guildId: string, userId: string, roleId: string): Promise<void>;
  sendMessage(channelId: string, content: string): Promise<void>;
}

function snowflakes(...ids: string[]): void {
  for (const id of ids) if (!isSnowflake(id)) throw new ProviderError("Discord", `"${id}" is not a Discord id`);
}

/** The bot's API client, or null when no bot token is configured (Discord features are then skipped). */
export function discordApi(config: Pick<BackendConfig, "discordApiUrl" | "discordBotToken">, fetchImpl: typeof fetch): DiscordApi | null {
  if (!config.discordBotToken) return null;
  const headers = { authorization: `Bot ${config.discordBotToken}` };
  const call = <T>(method: "GET" | "PUT" | "DELETE" | "POST", path: string, body?: unknown) =>
    requestJson<T>(fetchImpl, { provider: "Discord", url: `${config.discordApiUrl}${path}`, method, headers, body });
  return {
    async guildRoles(guildId) {
      snowflakes(guildId);
      return (await call<DiscordRoleObject[]>("GET", `/guilds/${guildId}/roles`)) ?? [];
    },
    async member(guildId, userId) {
      snowflakes(guildId, userId);
      try {
        return await call<DiscordMember>("GET", `/guilds/${guildId}/members/${userId}`);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return null;
        throw error;
      }
    },
    async members(guildId) {
      snowflakes(guildId);
      const all: DiscordMember[] = [];
      let after = "0";
      for (;;) {
        const page = (await call<DiscordMember[]>("GET", `/guilds/${guildId}/members?limit=${MEMBERS_PAGE}&after=${after}`)) ?? [];
        all.push(...page);
        const last = page.at(-1)?.user?.id;
        if (page.length < MEMBERS_PAGE || !last) return all;
        after = last;
      }
    },
    async channels(guildId) {
      snowflakes(guildId);
      return (await call<DiscordChannel[]>("GET", `/guilds/${guildId}/channels`)) ?? [];
    },
    async messages(channelId, limit) {
      snowflakes(channelId);
      return (await call<DiscordMessage[]>("GET", `/channels/${channelId}/messages?limit=${limit}`)) ?? [];
    },
    async addRole(guildId, userId, roleId) {
      snowflakes(guildId, userId, roleId);
      await call("PUT", `/guilds/${guildId}/members/${userId}/roles/${roleId}`);
    },
    async removeRole(guildId, userId, roleId) {
      snowflakes(guildId, userId, roleId);
      await call("DELETE", `/guilds/${guildId}/members/${userId}/roles/${roleId}`);
    },
    async sendMessage(channelId, content) {
      snowflakes(channelId);
      await call("POST", `/channels/${channelId}/messages`, { content, allowed_mentions: { parse: ["users"] } });
    },
  };
}

/**
 * `authenticateDiscordGuild` (MetaGame's packages/backend/src/handlers/actions/guild/discord/
 * oauthHandler.ts): a Discord server owner authorizes MetaGame's bot; the server becomes a PENDING
 * guild (with its metadata: the caller as creator, the refresh token) or, when a guild already has
 * that Discord id, the existing guild gets its metadata. MetaGame wrote the guild and its metadata
 * in two calls; here they are one mutation (the guild's id is chosen up front), so no guild is
 * left without metadata.
 */
import { randomUUID } from "node:crypto";
import type { BackendDeps } from "../../app.js";
import { EngineRequestError } from "../../engine-client.js";
import { type SessionVariables, userIdOf } from "../../session.js";
import { UUID } from "../payload.js";
import { authorizeDiscordGuild, type DiscordGuild } from "./discord-oauth.js";

export const NOT_CONFIGURED = "Discord sign-up is not configured on this server.";

/** The bot's permissions when it may read the server's announcements (View Channels + Read Message History). */
const ANNOUNCEMENT_PERMISSIONS = "66560";

const EXISTING = `query GuildByDiscordId($discordId: String!) {
  guild(where: {discordId: {_eq: $discordId}}) { id guildname metadata { discordMetadata } }
}`;

const CREATE = `mutation CreateDiscordGuild($guild: guild_insert_input!, $metadata: guild_metadata_insert_input!) {
  insert_guild_one(object: $guild) { guildname }
  insert_guild_metadata_one(object: $metadata) { guildId }
}`;

const ATTACH = `mutation AttachGuildMetadata($metadata: guild_metadata_insert_input!) {
  insert_guild_metadata_one(object: $metadata, on_conflict: {constraint: guild_metadata_pkey, update_columns: [creatorId, discordId, discordMetadata]}) { guildId }
}`;

const ANNOUNCEMENTS = `mutation GuildAnnouncements($id: uuid!, $show: Boolean!) {
  update_guild_by_pk(pk_columns: {id: $id}, _set: {showDiscordAnnouncements: $show}) { id }
}`;

const showsAnnouncements = (guild: DiscordGuild) =>
  guild.roles?.find((role) => role.name === "MetaGame")?.permissions === ANNOUNCEMENT_PERMISSIONS;

export async function authenticateDiscordGuild(deps: BackendDeps, session: SessionVariables, code: string) {
  const { discordClientId: id, discordClientSecret: secret, discordRedirectUri: redirectUri } = deps.config;
  if (!id || !secret || !redirectUri) return { success: false, error: NOT_CONFIGURED };
  const { guild: server, refreshToken } = await authorizeDiscordGuild(deps.config, deps.fetch, code, { id, secret, redirectUri });
  const discordMetadata = { refreshToken, ...(server.icon ? { logoHash: server.icon } : {}) };
  // A public caller has no player id: the guild is registered without a creator, as in MetaGame.
  const caller = userIdOf(session);
  const creatorId = caller && UUID.test(caller) ? caller : null;

  const { guild: existing } = await deps.engine.request<{
    guild: Array<{ id: string; guildname: string; metadata: { discordMetadata: { refreshToken?: unknown } | null } | null }>;
  }>(EXISTING, { discordId: server.id });
  const known = existing[0];
  if (known) {
    if (known.metadata?.discordMetadata?.refreshToken != null) {
      // Already registered; the bot's permissions may have changed since.
      await deps.engine.request(ANNOUNCEMENTS, { id: known.id, show: showsAnnouncements(server) });
      return { success: true, guildname: known.guildname, exists: true };
    }
    await deps.engine.request(ATTACH, { metadata: { guildId: known.id, creatorId, discordId: server.id, discordMetadata } });
    return { success: true, guildname: known.guildname };
  }

  const create = (name: string) => {
    const guildId = randomUUID();
    const guildname = name.toLowerCase().replace(/[^a-z0-9]/g, "");
    return deps.engine.request<{ insert_guild_one: { guildname: string } }>(CREATE, {
      guild: {
        id: guildId,
        type: "PROJECT",
        name,
        guildname,
        discordId: server.id,
        status: "PENDING",
        membershipThroughDiscord: true,
        showDiscordAnnouncements: showsAnnouncements(server),
        ...(server.icon ? { logo: `https://cdn.discordapp.com/icons/${server.id}/${server.icon}.png` } : {}),
      },
      metadata: { guildId, creatorId, discordId: server.id, discordMetadata },
    });
  };
  try {
    const created = await create(server.name);
    return { success: true, guildname: created.insert_guild_one.guildname };
  } catch (error) {
    // As MetaGame: when the guildname is taken, the guild is named after a random uuid instead.
    const taken = error instanceof EngineRequestError && error.message.includes("Guild_guildname_key");
    if (!taken) throw error;
    const created = await create(randomUUID());
    return { success: true, guildname: created.insert_guild_one.guildname };
  }
}

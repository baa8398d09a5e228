/**
 * MetaGame thanks a player in MetaFam's Discord #props channel when their quest completion is
 * accepted. Here that needs a bot token and a channel (DISCORD_BOT_TOKEN, DISCORD_PROPS_CHANNEL_ID)
 * and the player's linked Discord id; without them it logs why it skipped. The message is posted
 * with Discord's REST API (https://discord.com/developers/docs/resources/message#create-message),
 * mentioning the player as `<@id>`.
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../../app.js";

const PLAYER = `query PropsPlayer($id: uuid!) { player_by_pk(id: $id) { discordId } }`;

const DISCORD_TIMEOUT_MS = 10_000;

export async function sendDiscordProps(
  deps: BackendDeps,
  log: FastifyBaseLogger,
  playerId: string,
  quest: { id: string; title: string },
): Promise<void> {
  const { discordBotToken, discordPropsChannelId, discordApiUrl, frontendUrl } = deps.config;
  if (!discordBotToken || !discordPropsChannelId) {
    log.info({ questId: quest.id }, "no Discord props: DISCORD_BOT_TOKEN or DISCORD_PROPS_CHANNEL_ID is not set");
    return;
  }
  try {
    const { player_by_pk: player } = await deps.engine.request<{ player_by_pk: { discordId: string | null } | null }>(PLAYER, {
      id: playerId,
    });
    if (!player?.discordId) {
      log.info({ playerId, questId: quest.id }, "no Discord props: the player has no linked Discord account");
      return;
    }
    const content = `Props to <@${player.discordId}> for completing ${quest.title}! See the quest at ${frontendUrl}/quest/${quest.id}`;
    const response = await deps.fetch(`${discordApiUrl}/channels/${encodeURIComponent(discordPropsChannelId)}/messages`, {
      method: "POST",
      headers: { authorization: `Bot ${discordBotToken}`, "content-type": "application/json" },
      body: JSON.stringify({ content, allowed_mentions: { users: [player.discordId] } }),
      signal: AbortSignal.timeout(DISCORD_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) log.warn({ status: response.status, questId: quest.id }, "Discord refused the props message");
  } catch (error) {
    log.warn({ err: error, questId: quest.id }, "the Discord props message could not be sent");
  }
}

/**
 * Discord's side of `authenticateDiscordGuild`: the OAuth2 authorization-code exchange
 * (https://discord.com/developers/docs/topics/oauth2#authorization-code-grant). MetaGame asks for
 * the `bot identify` scopes, and with the bot scope Discord's token answer names the server the bot
 * was added to (`guild`, https://discord.com/developers/docs/topics/oauth2#advanced-bot-authorization).
 * When it does not, the server is taken from the user's servers (GET /users/@me/guilds): the one
 * server the user owns.
 */
import type { BackendConfig } from "../../config.js";
import { errors } from "../../errors.js";

export interface DiscordGuild {
  id: string;
  name: string;
  icon?: string | null;
  roles?: Array<{ name?: string; permissions?: string }>;
}

export interface DiscordAuthorization {
  refreshToken: string | null;
  guild: DiscordGuild;
}

const TIMEOUT_MS = 10_000;

const isGuild = (value: unknown): value is DiscordGuild =>
  value !== null &&
  typeof value === "object" &&
  typeof (value as DiscordGuild).id === "string" &&
  typeof (value as DiscordGuild).name === "string" &&
  (value as DiscordGuild).name !== "";

async function call(fetchImpl: typeof fetch, url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  try {
    const response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch (error) {
    throw errors.upstream(`Discord could not be reached (${(error as Error).message}).`);
  }
}

export async function authorizeDiscordGuild(
  config: BackendConfig,
  fetchImpl: typeof fetch,
  code: string,
  client: { id: string; secret: string; redirectUri: string },
): Promise<DiscordAuthorization> {
  const token = await call(fetchImpl, `${config.discordApiUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: client.id,
      client_secret: client.secret,
      grant_type: "authorization_code",
      code,
      redirect_uri: client.redirectUri,
    }),
  });
  const grant = token.body as { access_token?: unknown; refresh_token?: unknown; guild?: unknown } | null;
  if (token.status !== 200 || typeof grant?.access_token !== "string")
    throw errors.upstream(`Discord did not accept the authorization code (HTTP ${token.status}).`);
  const refreshToken = typeof grant.refresh_token === "string" ? grant.refresh_token : null;
  if (isGuild(grant.guild)) return { refreshToken, guild: grant.guild };

  const servers = await call(fetchImpl, `${config.discordApiUrl}/users/@me/guilds`, {
    headers: { authorization: `Bearer ${grant.access_token}` },
  });
  if (servers.status !== 200 || !Array.isArray(servers.body))
    throw errors.upstream(`Discord did not list the user's servers (HTTP ${servers.status}).`);
  const owned = (servers.body as unknown[]).filter((g) => isGuild(g) && (g as { owner?: unknown }).owner === true) as DiscordGuild[];
  const [guild] = owned;
  if (!guild || owned.length > 1)
    throw errors.refused(
      owned.length === 0
        ? "The Discord authorization names no server you own."
        : "The Discord authorization names no single server: add the MetaGame bot to the one server to register.",
    );
  return { refreshToken, guild };
}

/**
 * Discord (supabase/auth internal/api/provider/discord.go): the OAuth 2.0 endpoints and the
 * API under discord.com/api (EXTERNAL_DISCORD_URL/api when set); the user from /users/@me, its
 * address verified as Discord's `verified` says. The picture is built on Discord's CDN: the
 * avatar hash (a GIF when it starts with `a_`), else the default avatar of the discriminator
 * modulo 5; a discriminator that is not a number then fails the sign-in, as in GoTrue.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const CDN = "https://cdn.discordapp.com";

const apiOf = (url: string | undefined) => `${chooseHost(url, "discord.com")}/api`;

/** Go's strconv.Atoi: an optional sign and decimal digits, nothing else. */
function atoi(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) throw new Error(`discord: the discriminator "${value}" is not a number`);
  return Number.parseInt(value, 10);
}

function avatarUrl(id: string, avatar: string, discriminator: string): string {
  if (avatar === "") return `${CDN}/embed/avatars/${atoi(discriminator) % 5}.png`;
  return `${CDN}/avatars/${id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`;
}

export const discord: ProviderSpec = {
  scopes: ["email", "identify"],
  endpoints: ({ config }) => {
    const api = apiOf(config.url);
    return { authorize: `${api}/oauth2/authorize`, token: `${api}/oauth2/token` };
  },
  async userData(calls, tokens) {
    const api = apiOf(calls.config.url);
    const user = record(await calls.getJson(`${api}/users/@me`, tokens));
    const id = text(user.id);
    const username = text(user.username);
    const discriminator = text(user.discriminator);
    const email = text(user.email);
    const picture = avatarUrl(id, text(user.avatar), discriminator);
    return {
      emails: email ? [{ email, verified: user.verified === true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: `${username}#${discriminator}`,
        picture,
        // Always present, empty or not, as GoTrue's map.
        custom_claims: { global_name: text(user.global_name) },
        avatar_url: picture,
        full_name: username,
        provider_id: id,
      }),
    };
  },
};

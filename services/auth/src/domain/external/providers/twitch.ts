/**
 * Twitch (supabase/auth internal/api/provider/twitch.go): id.twitch.tv /oauth2/authorize and
 * /oauth2/token, the user from api.twitch.tv/helix/users, which wants the client id in a
 * Client-Id header beside the Bearer token (both hosts EXTERNAL_TWITCH_URL when set). The
 * address counts as verified; `name` is the login, `nickname` the display name.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const twitch: ProviderSpec = {
  scopes: ["user:read:email"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "id.twitch.tv");
    return { authorize: `${host}/oauth2/authorize`, token: `${host}/oauth2/token` };
  },
  async userData(calls, tokens) {
    const api = chooseHost(calls.config.url, "api.twitch.tv");
    const answer = record(await calls.getJson(`${api}/helix/users`, tokens, { "Client-Id": calls.config.clientId ?? "" }));
    const list = Array.isArray(answer.data) ? answer.data : [];
    if (list.length === 0) throw new Error("unable to find user with twitch provider");
    const user = record(list[0]);
    const id = text(user.id);
    const email = text(user.email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        picture: text(user.profile_image_url),
        name: text(user.login),
        nickname: text(user.display_name),
        custom_claims: {
          broadcaster_type: text(user.broadcaster_type),
          description: text(user.description),
          type: text(user.type),
          offline_image_url: text(user.offline_image_url),
          view_count: typeof user.view_count === "number" ? user.view_count : 0,
        },
        slug: text(user.display_name),
        avatar_url: text(user.profile_image_url),
        full_name: text(user.login),
        provider_id: id,
      }),
    };
  },
};

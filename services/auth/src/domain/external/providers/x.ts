/**
 * X (formerly Twitter) with OAuth 2.0, "x" (supabase/auth internal/api/provider/x.go):
 * x.com/i/oauth2/authorize and api.x.com/2/oauth2/token (both EXTERNAL_X_URL when set), with
 * PKCE, which X requires of every client (flow.ts keeps the verifier in oauth_client_states).
 * The user from /2/users/me with its user.fields; X gives only a confirmed address
 * (`confirmed_email`), so it counts as verified.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const USER_FIELDS = "id,name,username,confirmed_email,profile_image_url,url,created_at";

export const x: ProviderSpec = {
  scopes: ["users.email", "tweet.read", "users.read", "offline.access"],
  requiresPkce: true,
  endpoints: ({ config }) => ({
    authorize: `${chooseHost(config.url, "x.com")}/i/oauth2/authorize`,
    token: `${chooseHost(config.url, "api.x.com")}/2/oauth2/token`,
  }),
  async userData(calls, tokens) {
    const api = chooseHost(calls.config.url, "api.x.com");
    const user = record(record(await calls.getJson(`${api}/2/users/me?user.fields=${USER_FIELDS}`, tokens)).data);
    const id = text(user.id);
    const username = text(user.username);
    const email = text(user.confirmed_email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: text(user.name),
        preferred_username: username,
        picture: text(user.profile_image_url),
        profile: `https://x.com/${username}`,
        website: text(user.url),
        custom_claims: { created_at: text(user.created_at) },
        avatar_url: text(user.profile_image_url),
        full_name: text(user.name),
        provider_id: id,
        user_name: username,
      }),
    };
  },
};

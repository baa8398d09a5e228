/**
 * Sign in with Slack (OpenID Connect), "slack_oidc" (supabase/auth
 * internal/api/provider/slack_oidc.go): slack.com (or EXTERNAL_SLACK_OIDC_URL)
 * /openid/connect/authorize and /api/openid.connect.token, the user from
 * /api/openid.connect.userInfo (not from the ID token, as in GoTrue), its address verified as
 * that answer's `email_verified` says. The team id is a custom claim.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const slackOidc: ProviderSpec = {
  scopes: ["profile", "email", "openid"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "slack.com");
    return { authorize: `${host}/openid/connect/authorize`, token: `${host}/api/openid.connect.token` };
  },
  async userData(calls, tokens) {
    const api = `${chooseHost(calls.config.url, "slack.com")}/api`;
    const user = record(await calls.getJson(`${api}/openid.connect.userInfo`, tokens));
    const id = text(user["https://slack.com/user_id"]);
    const email = text(user.email);
    return {
      emails: email ? [{ email, verified: user.email_verified === true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: text(user.name),
        picture: text(user.picture),
        custom_claims: { "https://slack.com/team_id": text(user["https://slack.com/team_id"]) },
        avatar_url: text(user.picture),
        full_name: text(user.name),
        provider_id: id,
      }),
    };
  },
};

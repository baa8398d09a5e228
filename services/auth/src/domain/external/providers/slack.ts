/**
 * Slack's legacy OAuth, "slack" (supabase/auth internal/api/provider/slack.go): slack.com (or
 * EXTERNAL_SLACK_URL) /oauth/authorize and /api/oauth.access, the user from
 * /api/openid.connect.userInfo. Slack says nothing of verification: its address counts as
 * verified. The team id is a custom claim.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const slack: ProviderSpec = {
  scopes: ["profile", "email", "openid"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "slack.com");
    return { authorize: `${host}/oauth/authorize`, token: `${host}/api/oauth.access` };
  },
  async userData(calls, tokens) {
    const api = `${chooseHost(calls.config.url, "slack.com")}/api`;
    const user = record(await calls.getJson(`${api}/openid.connect.userInfo`, tokens));
    const id = text(user["https://slack.com/user_id"]);
    const email = text(user.email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
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

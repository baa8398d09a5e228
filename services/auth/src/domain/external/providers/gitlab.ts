/**
 * GitLab, gitlab.com or self-hosted at EXTERNAL_GITLAB_URL (supabase/auth
 * internal/api/provider/gitlab.go): the primary address is verified when the account is
 * confirmed; the others from /user/emails count as unverified.
 */
import { chooseHost, claims, type ProviderEmail, type ProviderSpec, record, text } from "../types.js";

export const gitlab: ProviderSpec = {
  scopes: ["read_user"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "gitlab.com");
    return { authorize: `${host}/oauth/authorize`, token: `${host}/oauth/token` };
  },
  async userData(calls, tokens) {
    const host = chooseHost(calls.config.url, "gitlab.com");
    const user = record(await calls.getJson(`${host}/api/v4/user`, tokens));
    const list = await calls.getJson(`${host}/api/v4/user/emails`, tokens);
    const emails: ProviderEmail[] = (Array.isArray(list) ? list : [])
      .map(record)
      .filter((entry) => text(entry.email) !== "")
      .map((entry) => ({ email: text(entry.email), verified: false, primary: false }));
    if (text(user.email) !== "") emails.push({ email: text(user.email), verified: text(user.confirmed_at) !== "", primary: true });
    const id = text(user.id);
    return {
      emails,
      claims: claims({
        iss: host,
        sub: id,
        name: text(user.name),
        picture: text(user.avatar_url),
        avatar_url: text(user.avatar_url),
        full_name: text(user.name),
        provider_id: id,
      }),
    };
  },
};

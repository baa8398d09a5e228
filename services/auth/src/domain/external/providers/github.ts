/** GitHub (supabase/auth internal/api/provider/github.go): the profile, then the addresses from /user/emails. */
import { chooseHost, claims, type ProviderEmail, type ProviderSpec, record, text } from "../types.js";

function hosts(url: string | undefined) {
  const auth = chooseHost(url, "github.com");
  const api = chooseHost(url, "api.github.com");
  // GitHub Enterprise serves its API under /api/v3 of its own host.
  return { auth, api: api.endsWith("api.github.com") ? api : `${api}/api/v3` };
}

export const github: ProviderSpec = {
  scopes: ["user:email"],
  endpoints: ({ config }) => {
    const { auth } = hosts(config.url);
    return { authorize: `${auth}/login/oauth/authorize`, token: `${auth}/login/oauth/access_token` };
  },
  async userData(calls, tokens) {
    const { api } = hosts(calls.config.url);
    const user = record(await calls.getJson(`${api}/user`, tokens));
    const list = await calls.getJson(`${api}/user/emails`, tokens);
    const emails: ProviderEmail[] = (Array.isArray(list) ? list : [])
      .map(record)
      .filter((entry) => text(entry.email) !== "")
      .map((entry) => ({ email: text(entry.email), verified: entry.verified === true, primary: entry.primary === true }));
    const id = text(user.id);
    return {
      emails,
      claims: claims({
        iss: api,
        sub: id,
        name: text(user.name),
        preferred_username: text(user.login),
        avatar_url: text(user.avatar_url),
        full_name: text(user.name),
        provider_id: id,
        user_name: text(user.login),
      }),
    };
  },
};

/**
 * Bitbucket Cloud (supabase/auth internal/api/provider/bitbucket.go): bitbucket.org's OAuth 2.0
 * endpoints and the 2.0 API at api.bitbucket.org (both at EXTERNAL_BITBUCKET_URL when set, the
 * API under /2.0). The profile from /user carries no address: they come from a second call,
 * /user/emails, with Bitbucket's is_primary and is_confirmed flags.
 */
import { chooseHost, claims, type ProviderEmail, type ProviderSpec, record, text } from "../types.js";

function hosts(url: string | undefined) {
  return { auth: chooseHost(url, "bitbucket.org"), api: `${chooseHost(url, "api.bitbucket.org")}/2.0` };
}

export const bitbucket: ProviderSpec = {
  scopes: ["account", "email"],
  fixedScopes: true,
  endpoints: ({ config }) => {
    const { auth } = hosts(config.url);
    return { authorize: `${auth}/site/oauth2/authorize`, token: `${auth}/site/oauth2/access_token` };
  },
  async userData(calls, tokens) {
    const { api } = hosts(calls.config.url);
    const user = record(await calls.getJson(`${api}/user`, tokens));
    const list = record(await calls.getJson(`${api}/user/emails`, tokens)).values;
    const emails: ProviderEmail[] = (Array.isArray(list) ? list : [])
      .map(record)
      .filter((entry) => text(entry.email) !== "")
      .map((entry) => ({ email: text(entry.email), verified: entry.is_confirmed === true, primary: entry.is_primary === true }));
    const id = text(user.uuid);
    const name = text(user.display_name);
    const avatar = text(record(user.avatar).href);
    return {
      emails,
      claims: claims({
        iss: api,
        sub: id,
        name,
        picture: avatar,
        avatar_url: avatar,
        full_name: name,
        provider_id: id,
      }),
    };
  },
};

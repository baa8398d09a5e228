/**
 * Notion (supabase/auth internal/api/provider/notion.go): the OAuth 2.0 endpoints and the API
 * at api.notion.com/v1 (EXTERNAL_NOTION_URL when set), no scopes. The user is the owner of the
 * bot the token stands for, read from /v1/users/me with the API version Notion requires
 * (Notion-Version: 2021-08-16). Notion does not say whether the address is verified; GoTrue
 * counts it as verified.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const NOTION_VERSION = "2021-08-16";

export const notion: ProviderSpec = {
  scopes: [],
  fixedScopes: true,
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "api.notion.com");
    return { authorize: `${host}/v1/oauth/authorize`, token: `${host}/v1/oauth/token` };
  },
  async userData(calls, tokens) {
    const host = chooseHost(calls.config.url, "api.notion.com");
    const me = record(await calls.getJson(`${host}/v1/users/me`, tokens, { "Notion-Version": NOTION_VERSION }));
    const user = record(record(record(me.bot).owner).user);
    const id = text(user.id);
    const name = text(user.name);
    const avatar = text(user.avatar_url);
    const email = text(record(user.person).email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: host,
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

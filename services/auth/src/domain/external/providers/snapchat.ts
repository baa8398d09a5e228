/**
 * Snapchat Login Kit (supabase/auth internal/api/provider/snapchat.go): accounts.snapchat.com
 * /accounts/oauth2/auth and /accounts/oauth2/token, the user from kit.snapchat.com/v1/me with a
 * GraphQL query in its `query` parameter (all three hosts EXTERNAL_SNAPCHAT_URL when set). The
 * address, when Snapchat gives one, counts as verified; the issuer is GoTrue's fixed
 * IssuerSnapchat.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const SNAPCHAT_ISSUER = "https://accounts.snapchat.com/accounts/oauth2/token";
const PROFILE_QUERY = "{me { externalId displayName bitmoji { avatar id } email } }";

export const snapchat: ProviderSpec = {
  scopes: [
    "https://auth.snapchat.com/oauth2/api/user.external_id",
    "https://auth.snapchat.com/oauth2/api/user.display_name",
    "https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar",
  ],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "accounts.snapchat.com");
    return { authorize: `${host}/accounts/oauth2/auth`, token: `${host}/accounts/oauth2/token` };
  },
  async userData(calls, tokens) {
    const profile = `${chooseHost(calls.config.url, "kit.snapchat.com")}/v1/me?${new URLSearchParams({ query: PROFILE_QUERY })}`;
    const me = record(record(record(await calls.getJson(profile, tokens)).data).me);
    const id = text(me.externalId);
    const name = text(me.displayName);
    const avatar = text(record(me.bitmoji).avatar);
    const email = text(me.email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: SNAPCHAT_ISSUER,
        sub: id,
        name,
        picture: avatar,
        slug: name,
        avatar_url: avatar,
        full_name: name,
        provider_id: id,
      }),
    };
  },
};

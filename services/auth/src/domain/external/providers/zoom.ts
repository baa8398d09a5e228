/**
 * Zoom (supabase/auth internal/api/provider/zoom.go): zoom.us/oauth/authorize and
 * /oauth/token, no scopes, the user from api.zoom.us/v2/users/me (EXTERNAL_ZOOM_URL for both
 * hosts when set). The address counts as verified unless the account is a Zoom email login
 * (login_type "100") that never confirmed it (`verified` 0).
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const zoom: ProviderSpec = {
  scopes: [],
  fixedScopes: true,
  endpoints: ({ config }) => {
    const host = `${chooseHost(config.url, "zoom.us")}/oauth`;
    return { authorize: `${host}/authorize`, token: `${host}/token` };
  },
  async userData(calls, tokens) {
    const api = `${chooseHost(calls.config.url, "api.zoom.us")}/v2`;
    const user = record(await calls.getJson(`${api}/users/me`, tokens));
    const id = text(user.id);
    const email = text(user.email);
    const confirmed = typeof user.verified === "number" ? user.verified : 0;
    const name = `${text(user.first_name)} ${text(user.last_name)}`.trim();
    return {
      emails: email ? [{ email, verified: text(user.login_type) !== "100" || confirmed !== 0, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name,
        picture: text(user.pic_url),
        avatar_url: text(user.pic_url),
        full_name: name,
        provider_id: id,
      }),
    };
  },
};

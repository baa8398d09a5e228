/**
 * Figma (supabase/auth internal/api/provider/figma.go): the consent page at www.figma.com/oauth,
 * the token endpoint and the user at api.figma.com/v1 (both hosts at EXTERNAL_FIGMA_URL when
 * set). Figma's address counts as verified. GoTrue sets no `picture`, only `avatar_url`.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const figma: ProviderSpec = {
  scopes: ["current_user:read"],
  endpoints: ({ config }) => ({
    authorize: `${chooseHost(config.url, "www.figma.com")}/oauth`,
    token: `${chooseHost(config.url, "api.figma.com")}/v1/oauth/token`,
  }),
  async userData(calls, tokens) {
    const api = chooseHost(calls.config.url, "api.figma.com");
    const user = record(await calls.getJson(`${api}/v1/me`, tokens));
    const id = text(user.id);
    const email = text(user.email);
    const handle = text(user.handle);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: handle,
        email,
        email_verified: true,
        avatar_url: text(user.img_url),
        full_name: handle,
        provider_id: id,
      }),
    };
  },
};

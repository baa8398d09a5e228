/**
 * Facebook Login (supabase/auth internal/api/provider/facebook.go): the dialog at
 * www.facebook.com, the token endpoint and the Graph API at graph.facebook.com (all at
 * EXTERNAL_FACEBOOK_URL when set). The profile comes from /me with fixed fields and an
 * `appsecret_proof` (HMAC-SHA256 of the access token keyed by the app secret, hex), which
 * apps that require it must send. Facebook gives only confirmed addresses: the address counts
 * as verified. The issuer is the profile URL, as GoTrue records it.
 */
import { createHmac } from "node:crypto";
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const profileUrlOf = (url: string | undefined) =>
  `${chooseHost(url, "graph.facebook.com")}/me?fields=email,first_name,last_name,name,picture`;

export const facebook: ProviderSpec = {
  scopes: ["email"],
  endpoints: ({ config }) => ({
    authorize: `${chooseHost(config.url, "www.facebook.com")}/dialog/oauth`,
    token: `${chooseHost(config.url, "graph.facebook.com")}/oauth/access_token`,
  }),
  async userData(calls, tokens) {
    const profileUrl = profileUrlOf(calls.config.url);
    const proof = createHmac("sha256", calls.config.secret ?? "")
      .update(tokens.accessToken)
      .digest("hex");
    const user = record(await calls.getJson(`${profileUrl}&appsecret_proof=${proof}`, tokens));
    const id = text(user.id);
    const email = text(user.email);
    const name = `${text(user.first_name)} ${text(user.last_name)}`.trim();
    const alias = text(user.name);
    const picture = text(record(record(user.picture).data).url);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: profileUrl,
        sub: id,
        name,
        nickname: alias,
        picture,
        slug: alias,
        avatar_url: picture,
        full_name: name,
        provider_id: id,
      }),
    };
  },
};

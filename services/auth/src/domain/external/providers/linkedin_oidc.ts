/**
 * LinkedIn with OpenID Connect, "linkedin_oidc" (supabase/auth
 * internal/api/provider/linkedin_oidc.go): the authorize and token endpoints on api.linkedin.com
 * (or EXTERNAL_LINKEDIN_OIDC_URL), the user from the ID token only, verified with the keys of
 * LinkedIn's fixed issuer (EXTERNAL_LINKEDIN_OIDC_TEST_ISSUER in tests). A token answer without
 * an ID token gives no user, as GoTrue's empty UserProvidedData.
 */
import { discover } from "../oidc.js";
import { chooseHost, type ProviderCalls, type ProviderSpec } from "../types.js";
import { linkedinProfile } from "./id-token-profiles.js";

export const LINKEDIN_ISSUER = "https://www.linkedin.com/oauth";

const issuerOf = (calls: ProviderCalls) => calls.config.testIssuer ?? LINKEDIN_ISSUER;

export const linkedinOidc: ProviderSpec = {
  scopes: ["openid", "email", "profile"],
  async endpoints(calls) {
    // GoTrue loads the issuer when it builds the provider: an unreachable issuer refuses /authorize too.
    await discover(issuerOf(calls));
    const host = chooseHost(calls.config.url, "api.linkedin.com");
    return { authorize: `${host}/oauth/v2/authorization`, token: `${host}/oauth/v2/accessToken` };
  },
  async userData(calls, tokens) {
    if (!tokens.idToken) return { emails: [], claims: { sub: "" } };
    const issuer = issuerOf(calls);
    const payload = await calls.verifyIdToken(tokens.idToken, {
      discoveryIssuer: issuer,
      issuer,
      audiences: [calls.config.clientId ?? ""],
      accessToken: tokens.accessToken,
    });
    return linkedinProfile(payload);
  },
};

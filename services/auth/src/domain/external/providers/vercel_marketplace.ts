/**
 * Vercel Marketplace, "vercel_marketplace" (supabase/auth
 * internal/api/provider/vercel_marketplace.go): the authorize and token endpoints on
 * api.vercel.com (or EXTERNAL_VERCEL_MARKETPLACE_URL), no default scopes, the user from the ID
 * token only (an answer without one is refused), verified with the keys of Vercel's fixed issuer
 * (EXTERNAL_VERCEL_MARKETPLACE_TEST_ISSUER in tests). Its address counts as verified.
 */
import { discover, IdTokenError } from "../oidc.js";
import { chooseHost, type ProviderCalls, type ProviderSpec } from "../types.js";
import { vercelMarketplaceProfile } from "./id-token-profiles.js";

export const VERCEL_MARKETPLACE_ISSUER = "https://marketplace.vercel.com";

const issuerOf = (calls: ProviderCalls) => calls.config.testIssuer ?? VERCEL_MARKETPLACE_ISSUER;

export const vercelMarketplace: ProviderSpec = {
  scopes: [],
  async endpoints(calls) {
    // GoTrue loads the issuer when it builds the provider: an unreachable issuer refuses /authorize too.
    await discover(issuerOf(calls));
    const host = chooseHost(calls.config.url, "api.vercel.com");
    return { authorize: `${host}/oauth/v2/authorization`, token: `${host}/oauth/v2/accessToken` };
  },
  async userData(calls, tokens) {
    if (!tokens.idToken) throw new IdTokenError("vercel_marketplace: no OIDC ID token present in response");
    const issuer = issuerOf(calls);
    const payload = await calls.verifyIdToken(tokens.idToken, {
      discoveryIssuer: issuer,
      issuer,
      audiences: [calls.config.clientId ?? ""],
      accessToken: tokens.accessToken,
    });
    return vercelMarketplaceProfile(payload);
  },
};

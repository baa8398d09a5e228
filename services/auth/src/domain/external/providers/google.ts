/**
 * Google (supabase/auth internal/api/provider/google.go): endpoints from Google's discovery
 * document; the user from the ID token when the token endpoint returns one, else from the
 * userinfo endpoint. EXTERNAL_GOOGLE_URL is ignored, as in GoTrue; EXTERNAL_GOOGLE_TEST_ISSUER
 * replaces the issuer in tests.
 */
import { discover } from "../oidc.js";
import { claims, type ProviderCalls, type ProviderSpec, record, text } from "../types.js";
import { googleProfile } from "./id-token-profiles.js";

export const GOOGLE_ISSUER = "https://accounts.google.com";
const USERINFO = "https://www.googleapis.com/userinfo/v2/me";

const issuerOf = (calls: ProviderCalls) => calls.config.testIssuer ?? GOOGLE_ISSUER;

export const google: ProviderSpec = {
  scopes: ["email", "profile"],
  async endpoints(calls) {
    const document = await discover(issuerOf(calls));
    return { authorize: document.authorization_endpoint, token: document.token_endpoint };
  },
  async userData(calls, tokens) {
    const issuer = issuerOf(calls);
    if (tokens.idToken) {
      const payload = await calls.verifyIdToken(tokens.idToken, {
        discoveryIssuer: issuer,
        issuer,
        audiences: [calls.config.clientId ?? ""],
        accessToken: tokens.accessToken,
      });
      return googleProfile(payload);
    }
    const userinfo = calls.config.testIssuer ? ((await discover(issuer)).userinfo_endpoint ?? USERINFO) : USERINFO;
    const user = record(await calls.getJson(userinfo, tokens));
    const id = text(user.id) || text(user.sub);
    const verified = user.verified_email === true || user.email_verified === true;
    const email = text(user.email);
    return {
      emails: email ? [{ email, verified, primary: true }] : [],
      claims: claims({
        iss: userinfo,
        sub: id,
        name: text(user.name),
        picture: text(user.picture),
        email,
        email_verified: verified,
        avatar_url: text(user.picture),
        full_name: text(user.name),
        provider_id: id,
      }),
    };
  },
};

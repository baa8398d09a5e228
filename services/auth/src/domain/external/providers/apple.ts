/**
 * Sign in with Apple (supabase/auth internal/api/provider/apple.go): endpoints from Apple's
 * discovery document, `response_mode=form_post` (the callback is a POST), the user from the ID
 * token, whose issuer may be appleid.apple.com or account.apple.com (the issuer check is
 * skipped, as GoTrue skips it). Apple sends the user's name only at the first sign-in, in the
 * callback's `user` form field. EXTERNAL_APPLE_URL is ignored.
 */
import { discover } from "../oidc.js";
import type { ProviderCalls, ProviderSpec, ProviderUser } from "../types.js";
import { appleProfile } from "./id-token-profiles.js";

export const APPLE_ISSUERS = ["https://appleid.apple.com", "https://account.apple.com"];

const issuerOf = (calls: ProviderCalls) => calls.config.testIssuer ?? (APPLE_ISSUERS[0] as string);

export const apple: ProviderSpec = {
  scopes: ["email", "name"],
  fixedScopes: true,
  authorizeParams: { response_mode: "form_post" },
  async endpoints(calls) {
    const document = await discover(issuerOf(calls));
    return { authorize: document.authorization_endpoint, token: document.token_endpoint };
  },
  async userData(calls, tokens): Promise<ProviderUser> {
    if (!tokens.idToken) return { emails: [], claims: { sub: "" } };
    const payload = await calls.verifyIdToken(tokens.idToken, {
      discoveryIssuer: issuerOf(calls),
      issuer: () => true,
      audiences: [calls.config.clientId ?? ""],
      accessToken: tokens.accessToken,
    });
    return appleProfile(payload);
  },
};

/** The `user` form field of Apple's first callback: `{"name": {"firstName", "lastName"}}` (GoTrue's ParseUser). */
export function withAppleName(user: ProviderUser, field: string | undefined): ProviderUser {
  if (!field) return user;
  let parsed: { name?: { firstName?: unknown; lastName?: unknown } };
  try {
    parsed = JSON.parse(field) as typeof parsed;
  } catch {
    return user;
  }
  const first = typeof parsed.name?.firstName === "string" ? parsed.name.firstName : "";
  const last = typeof parsed.name?.lastName === "string" ? parsed.name.lastName : "";
  const name = `${first} ${last}`.trim();
  if (name === "") return user;
  return { ...user, claims: { ...user.claims, name, full_name: name } };
}

/**
 * Keycloak (supabase/auth internal/api/provider/keycloak.go): a realm's OpenID Connect
 * endpoints under EXTERNAL_KEYCLOAK_URL (the realm URL, e.g. https://kc.example/realms/app),
 * which has no default: without it the provider cannot be used. The user comes from the realm's
 * userinfo endpoint (not from an ID token, as in GoTrue); every claim besides name, sub, email
 * and email_verified goes to custom_claims.
 */
import { chooseHost, claims, type ProviderSpec, record } from "../types.js";

const STANDARD = new Set(["name", "sub", "email", "email_verified"]);

function realmOf(url: string | undefined): string {
  if (!url) throw new Error("unable to find URL for the Keycloak provider");
  return chooseHost(url, "");
}

export const keycloak: ProviderSpec = {
  scopes: ["profile", "email"],
  endpoints: ({ config }) => {
    const realm = realmOf(config.url);
    return { authorize: `${realm}/protocol/openid-connect/auth`, token: `${realm}/protocol/openid-connect/token` };
  },
  async userData(calls, tokens) {
    const realm = realmOf(calls.config.url);
    const user = record(await calls.getJson(`${realm}/protocol/openid-connect/userinfo`, tokens));
    const sub = typeof user.sub === "string" ? user.sub : "";
    const name = typeof user.name === "string" ? user.name : "";
    const email = typeof user.email === "string" ? user.email : "";
    const verified = user.email_verified === true;
    const custom = Object.fromEntries(Object.entries(user).filter(([key]) => !STANDARD.has(key)));
    return {
      emails: email ? [{ email, verified, primary: true }] : [],
      claims: claims({
        iss: realm,
        sub,
        name,
        email,
        email_verified: verified,
        custom_claims: custom,
        full_name: name,
        provider_id: sub,
      }),
    };
  },
};

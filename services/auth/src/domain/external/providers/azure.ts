/**
 * Microsoft Entra ID, "azure" (supabase/auth internal/api/provider/azure.go): the common
 * endpoint, or the tenant (or CIAM tenant) at EXTERNAL_AZURE_URL, which then fixes the issuer.
 * The user comes from the ID token only, verified with the keys of the issuer the token names,
 * which must be a Microsoft issuer.
 */
import { decodeJwt } from "jose";
import { discover, IdTokenError } from "../oidc.js";
import { chooseHost, type ProviderCalls, type ProviderSpec } from "../types.js";
import { azureProfile } from "./id-token-profiles.js";

const AZURE_ISSUER = /^https:\/\/login[.]microsoftonline[.]com\/([^/]+)\/v2[.]0\/?$/;
const AZURE_CIAM_ISSUER = /^https:\/\/[a-z0-9-]+[.]ciamlogin[.]com\/([^/]+)\/v2[.]0\/?$/;
const SHARED_ISSUERS = new Set(["https://login.microsoftonline.com/common/v2.0", "https://login.microsoftonline.com/organizations/v2.0"]);

export const isAzureIssuer = (issuer: string) => AZURE_ISSUER.test(issuer) || AZURE_CIAM_ISSUER.test(issuer);

/** The issuer a tenant URL fixes, or "" for the shared endpoints (any tenant's issuer then). */
function expectedIssuer(url: string | undefined): string {
  if (!url) return "";
  const issuer = `${chooseHost(url, "")}/v2.0`;
  return isAzureIssuer(issuer) && !SHARED_ISSUERS.has(issuer) ? issuer : "";
}

/** The issuer the ID token must have come from and whose keys verify it. */
export function azureIssuerOf(calls: Pick<ProviderCalls, "config">, idToken: string): string {
  if (calls.config.testIssuer) return calls.config.testIssuer;
  let issuer: string;
  try {
    issuer = String(decodeJwt(idToken).iss ?? "");
  } catch {
    throw new IdTokenError("azure: invalid ID token");
  }
  if (!isAzureIssuer(issuer)) throw new IdTokenError(`azure: ID token issuer not valid "${issuer}"`);
  const expected = expectedIssuer(calls.config.url);
  if (expected !== "" && issuer !== expected) {
    throw new IdTokenError(`azure: ID token issuer "${issuer}" does not match expected issuer "${expected}"`);
  }
  return issuer;
}

export const azure: ProviderSpec = {
  scopes: ["openid"],
  async endpoints({ config }) {
    if (config.testIssuer) {
      const document = await discover(config.testIssuer);
      return { authorize: document.authorization_endpoint, token: document.token_endpoint };
    }
    const host = chooseHost(config.url, "login.microsoftonline.com/common");
    return { authorize: `${host}/oauth2/v2.0/authorize`, token: `${host}/oauth2/v2.0/token` };
  },
  async userData(calls, tokens) {
    if (!tokens.idToken) throw new IdTokenError("azure: the token endpoint returned no ID token");
    const issuer = azureIssuerOf(calls, tokens.idToken);
    const payload = await calls.verifyIdToken(tokens.idToken, {
      discoveryIssuer: issuer,
      issuer,
      audiences: [calls.config.clientId ?? ""],
      accessToken: tokens.accessToken,
    });
    return azureProfile(payload);
  },
};

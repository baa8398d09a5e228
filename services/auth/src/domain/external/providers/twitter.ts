/**
 * Twitter's OAuth 1.0a sign-in (supabase/auth internal/api/provider/twitter.go and
 * external_oauth.go oAuth1Callback): /authorize gets a request token whose oauth_callback is the
 * redirect URI carrying `?state=<flow id>`, and sends the browser to /oauth/authenticate; the
 * callback brings oauth_token and oauth_verifier, exchanged for an access token (signed, as
 * GoTrue signs it, with the consumer secret alone), then verify_credentials gives the user.
 * Requests are signed HMAC-SHA1 by the oauth-1.0a library. Twitter gives no refresh token.
 */
import { createHmac } from "node:crypto";
import OAuth from "oauth-1.0a";
import type { ProviderConfig } from "../../../config/providers.js";
import { boundedText, ProviderCallError } from "../oauth-client.js";
import { chooseHost, claims, type ProviderSpec, type ProviderTokens, type ProviderUser, record, text } from "../types.js";

const TIMEOUT_MS = 10_000;

const host = (config: ProviderConfig) => chooseHost(config.url, "api.twitter.com");

function signer(config: ProviderConfig): OAuth {
  return new OAuth({
    consumer: { key: config.clientId ?? "", secret: config.secret ?? "" },
    signature_method: "HMAC-SHA1",
    hash_function: (base, key) => createHmac("sha1", key).update(base).digest("base64"),
  });
}

/** A signed request; `oauth` are protocol parameters sent in the Authorization header with the signature. */
async function signed(config: ProviderConfig, method: "GET" | "POST", url: string, oauth: Record<string, string>, token?: OAuth.Token) {
  const client = signer(config);
  const authorization = client.authorize({ url, method, data: oauth }, token);
  const header = client.toHeader({ ...authorization, ...oauth } as OAuth.Authorization);
  const response = await fetch(url, {
    method,
    headers: { ...header, accept: "application/json" },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = await boundedText(response);
  if (!response.ok) throw new ProviderCallError(`${new URL(url).pathname} answered ${response.status}`);
  return body;
}

/** The authenticate URL for a new flow whose state is `state`. */
export async function twitterAuthorizeUrl(config: ProviderConfig, state: string): Promise<string> {
  const answer = new URLSearchParams(
    await signed(config, "POST", `${host(config)}/oauth/request_token`, { oauth_callback: `${config.redirectUri ?? ""}?state=${state}` }),
  );
  const token = answer.get("oauth_token");
  if (!token) throw new ProviderCallError("the request token endpoint answered no oauth_token");
  return `${host(config)}/oauth/authenticate?oauth_token=${encodeURIComponent(token)}`;
}

/** The callback: the access token for oauth_token and oauth_verifier, then the user. */
export async function twitterUser(
  config: ProviderConfig,
  oauthToken: string,
  verifier: string,
): Promise<{ tokens: ProviderTokens; user: ProviderUser }> {
  const answer = new URLSearchParams(
    await signed(config, "POST", `${host(config)}/oauth/access_token`, { oauth_verifier: verifier }, { key: oauthToken, secret: "" }),
  );
  const key = answer.get("oauth_token");
  if (!key) throw new ProviderCallError("the access token endpoint answered no oauth_token");
  const access = { key, secret: answer.get("oauth_token_secret") ?? "" };
  const userInfo = `${host(config)}/1.1/account/verify_credentials.json`;
  const url = `${userInfo}?include_email=true&include_entities=false&skip_status=true`;
  let profile: Record<string, unknown>;
  try {
    profile = record(JSON.parse(await signed(config, "GET", url, {}, access)));
  } catch (error) {
    if (error instanceof ProviderCallError) throw error;
    throw new ProviderCallError("verify_credentials did not answer JSON");
  }
  const email = text(profile.email);
  const id = text(profile.id_str);
  return {
    tokens: { accessToken: key, refreshToken: "", raw: Object.fromEntries(answer) },
    user: {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: userInfo,
        sub: id,
        name: text(profile.name),
        picture: text(profile.profile_image_url_https),
        preferred_username: text(profile.screen_name),
        user_name: text(profile.screen_name),
        full_name: text(profile.name),
        avatar_url: text(profile.profile_image_url_https),
        provider_id: id,
      }),
    },
  };
}

const notOAuth2 = (): never => {
  throw new ProviderCallError("twitter signs in with OAuth 1.0a");
};

export const twitter: ProviderSpec = {
  scopes: [],
  endpoints: notOAuth2,
  userData: notOAuth2,
  oauth1: {
    authorizeUrl: twitterAuthorizeUrl,
    callback: (config, params) => twitterUser(config, params.get("oauth_token") ?? "", params.get("oauth_verifier") ?? ""),
  },
};

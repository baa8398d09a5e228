/**
 * What a provider module is: how to send the browser to the provider, how to exchange the code,
 * and how to read the user it signed in (GoTrue's provider.OAuthProvider and UserProvidedData,
 * supabase/auth internal/api/provider/provider.go).
 */
import type { ProviderConfig, ProviderName } from "../../config/providers.js";

/** One address the provider knows for the user, and whether it says it is verified. */
export interface ProviderEmail {
  email: string;
  verified: boolean;
  primary: boolean;
}

/**
 * The profile, in GoTrue's provider.Claims names (`iss`, `sub`, `name`, `picture`, ...,
 * `custom_claims`, and the deprecated `full_name`, `avatar_url`, `provider_id`, `user_name`,
 * `slug`). It becomes the identity's identity_data and is merged into user_metadata.
 */
export type Claims = Record<string, unknown> & { sub: string };

export interface ProviderUser {
  emails: ProviderEmail[];
  claims: Claims;
}

/** A token endpoint's answer, as golang.org/x/oauth2 reads it (JSON or form-encoded). */
export interface ProviderTokens {
  accessToken: string;
  refreshToken: string;
  idToken?: string | undefined;
  /** Every field of the answer (WorkOS puts the profile here). */
  raw: Record<string, unknown>;
}

export interface Endpoints {
  authorize: string;
  token: string;
}

/** What a provider module may use to read the user. */
export interface ProviderCalls {
  name: ProviderName;
  config: ProviderConfig;
  /** GET `url` with the access token as a Bearer token (or as `headers` say); the JSON answer. */
  getJson(url: string, tokens: ProviderTokens, headers?: Record<string, string>): Promise<unknown>;
  /** Verifies an ID token with the keys of `issuer` (its discovery document), for this client. */
  verifyIdToken(idToken: string, options: IdTokenCheck): Promise<Record<string, unknown>>;
}

export interface IdTokenCheck {
  /** Where the keys are discovered. */
  discoveryIssuer: string;
  /** The `iss` the token must carry: one value, or any value the predicate accepts. */
  issuer: string | ((iss: string) => boolean);
  /** The audiences accepted (one must match); none: the caller checks the audience itself. */
  audiences?: readonly string[] | undefined;
  /** Checked against `at_hash` when both are present. */
  accessToken?: string | undefined;
}

export interface ProviderSpec {
  /** Space-joined into `scope`; `?scopes=` adds comma-separated ones. */
  scopes: readonly string[];
  /** `?scopes=` is ignored: GoTrue builds these providers without the request's scopes (apple, bitbucket, notion, workos, zoom). */
  fixedScopes?: boolean;
  endpoints(calls: ProviderCalls): Endpoints | Promise<Endpoints>;
  /** Parameters every authorize URL of this provider carries (Apple: response_mode=form_post). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Client credentials only in the body (GoTrue's AuthStyleInParams: kakao). */
  credentialsInBody?: boolean;
  /** The provider requires PKCE of its clients: this service keeps a verifier (x). */
  requiresPkce?: boolean;
  userData(calls: ProviderCalls, tokens: ProviderTokens): Promise<ProviderUser>;
  /** An OAuth 1.0a provider (twitter): its own two steps replace the authorize URL and the code exchange. */
  oauth1?: {
    authorizeUrl(config: ProviderConfig, state: string): Promise<string>;
    callback(config: ProviderConfig, params: URLSearchParams): Promise<{ tokens: ProviderTokens; user: ProviderUser }>;
  };
}

/** GoTrue's chooseHost: EXTERNAL_X_URL (without a trailing slash) replaces `https://<default>`. */
export const chooseHost = (url: string | undefined, defaultHost: string): string =>
  url ? url.replace(/\/+$/, "") : `https://${defaultHost}`;

/** Drops empty profile values, as GoTrue's structs tags (omitempty) do; the verified flags stay. */
export function claims(values: Record<string, unknown> & { sub: string }): Claims {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === "" || value === 0) continue;
    if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out[key] = value;
  }
  out.email_verified = values.email_verified === true;
  out.phone_verified = values.phone_verified === true;
  return out as Claims;
}

export const text = (value: unknown): string => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");

/** A JSON object from a provider, or an empty one. */
export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The redirects GoTrue answers browsers with (its prepErrorRedirectURL, redirectErrors and
 * AccessTokenResponse.AsRedirectURL): values set in the target's query, values in the fragment
 * (sorted and escaped as Go's url.Values.Encode writes them), with `sb` marking the redirect as
 * Supabase Auth's.
 */
import type { AuthError } from "./errors.js";
import type { TokenResponse } from "./sessions.js";
import { encodeValues } from "./url-encoding.js";

/** The OAuth `error` GoTrue reports for an error's status (its oauthErrorMap); others are server_error or none. */
export const OAUTH_ERRORS: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized_client",
  403: "access_denied",
  500: "server_error",
  503: "temporarily_unavailable",
};

/** `url` with `values` set in its query (replacing any of the same name), keeping the rest of it. */
export function withQuery(url: string, values: [string, string][]): string {
  const [base = "", fragment] = url.split("#", 2);
  const at = base.indexOf("?");
  const params = new URLSearchParams(at === -1 ? "" : base.slice(at + 1));
  for (const [key, value] of values) params.set(key, value);
  const path = at === -1 ? base : base.slice(0, at);
  return `${path}?${params.toString()}${fragment === undefined ? "" : `#${fragment}`}`;
}

/** `target` with `values` and `sb` as its fragment, and with `values` in its query too when `inQuery`. */
export function fragmentRedirect(target: string, values: [string, string][], inQuery = false): string {
  const base = inQuery ? withQuery(target, values) : target;
  return `${base.split("#")[0] ?? ""}#${encodeValues([...values, ["sb", ""]])}`;
}

/** A session as a redirect's fragment carries it, with `extra` values (`type`, the provider's tokens). */
export function sessionRedirect(target: string, session: TokenResponse, extra: [string, string][]): string {
  return fragmentRedirect(target, [
    ["access_token", session.access_token],
    ["token_type", session.token_type],
    ["expires_in", String(session.expires_in)],
    ["expires_at", String(session.expires_at)],
    ["refresh_token", session.refresh_token],
    ...extra,
  ]);
}

/**
 * GoTrue's prepErrorRedirectURL: error, error_code and error_description in the fragment, and in
 * a PKCE flow in the query too (where a server-side callback can read them).
 */
export function errorRedirect(redirectTo: string, error: AuthError, pkce = false): string {
  const values: [string, string][] = [];
  const oauth = OAUTH_ERRORS[error.status];
  if (oauth) values.push(["error", oauth]);
  values.push(["error_code", error.code], ["error_description", error.message]);
  return fragmentRedirect(redirectTo, values, pkce);
}

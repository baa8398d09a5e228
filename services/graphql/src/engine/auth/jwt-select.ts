/**
 * Which token of a request is verified, and against which secret, when several JWT secrets are
 * trusted (https://hasura.io/docs/latest/auth/authentication/multiple-jwt-secrets/, and
 * `processJwt_` in Hasura's server/src-lib/Hasura/Server/Auth/JWT.hs): every secret is paired
 * with each token found where that secret looks for one; a pair is kept when the token's `iss`
 * equals the secret's `issuer` or either is absent. No token at all: the unauthenticated flow.
 * Tokens but no kept pair: JWTNotInIssuer. More than one kept pair: the token is ambiguous.
 * A single secret is the same rule over a list of one.
 */
import { decodeJwt } from "jose";
import { invalidJwt, malformedAuthorizationHeader, multipleJwts } from "../errors/index.js";
import type { JwtSecret } from "./config.js";
import type { JwtTokenLocation } from "./jwt-config.js";
import type { RequestHeaders } from "./session-vars.js";

export interface SelectedJwt {
  secret: JwtSecret;
  token: string;
}

/**
 * The tokens at one location: none, one, or several (a cookie sent more than once). A location
 * that is present counts even when empty, as in Hasura (its verification then fails).
 */
function tokensAt(location: JwtTokenLocation, headers: RequestHeaders): string[] {
  if (location.type === "CustomHeader") {
    const token = headers[location.name.toLowerCase()];
    return token === undefined ? [] : [token];
  }
  if (location.type === "Cookie") return cookieValues(headers.cookie, location.name);
  const authorization = headers.authorization;
  if (authorization === undefined) return [];
  const words = authorization.trim().split(/\s+/);
  if (words.length !== 2 || words[0] !== "Bearer") throw malformedAuthorizationHeader();
  return [words[1] as string];
}

/** The values of the cookies called `name` (case-sensitive); whitespace is dropped, as Hasura's cookie parser (Spock's) drops it. */
function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const part of (header ?? "").replace(/\s+/g, "").split(";")) {
    const at = part.indexOf("=");
    if (at >= 0 && part.slice(0, at) === name) values.push(part.slice(at + 1));
  }
  return values;
}

/** The token's `iss` read without verifying it; undefined when absent or unreadable (then any secret may try it). */
function unverifiedIssuer(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The one (secret, token) pair to verify; null when the request carries no token for any secret. */
export function selectJwt(secrets: JwtSecret[], headers: RequestHeaders): SelectedJwt | null {
  let found = 0;
  const matching: SelectedJwt[] = [];
  for (const secret of secrets) {
    for (const token of tokensAt(secret.config.header, headers)) {
      found++;
      const expected = secret.config.issuer;
      const actual = unverifiedIssuer(token);
      if (expected === null || actual === undefined || expected === actual) matching.push({ secret, token });
    }
  }
  if (found === 0) return null;
  if (matching.length === 0) throw invalidJwt("JWTNotInIssuer");
  if (matching.length > 1) throw multipleJwts();
  return matching[0] as SelectedJwt;
}

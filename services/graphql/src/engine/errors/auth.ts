/**
 * Errors of authentication: the admin secret (`getUserInfoWithExpTime` in
 * server/src-lib/Hasura/Server/Auth.hs), JWTs and their keys (server/src-lib/Hasura/Server/Auth/JWT.hs),
 * the auth webhook (server/src-lib/Hasura/Server/Auth/WebHook.hs) and session variables
 * (server/src-lib/Hasura/Session.hs). 400 unless said; the admin endpoints answer them with 401.
 */
import { HasuraError } from "./hasura-error.js";

// --- Admin secret and role.

export function invalidAdminSecret(): HasuraError {
  return new HasuraError("access-denied", "invalid x-hasura-admin-secret/x-hasura-access-key", "$", 401);
}

/** No admin secret sent, and neither JWT, webhook nor an unauthorized role to fall back on. */
export function adminSecretRequired(): HasuraError {
  return new HasuraError("access-denied", "x-hasura-admin-secret/x-hasura-access-key required, but not found", "$", 401);
}

/** `x-hasura-role` names a role outside the token's allowed roles. */
export function roleNotAllowed(): HasuraError {
  return new HasuraError("access-denied", "Your requested role is not in allowed roles");
}

/** The webhook's session variables have no role. */
export function roleNotInSession(): HasuraError {
  return new HasuraError("invalid-params", "x-hasura-role not found in session variables");
}

/** `x-hasura-use-backend-only-permissions` that is not a boolean word (`parseStringAsBool` in server/src-lib/Hasura/Server/Utils.hs). */
export function invalidBackendOnlyHeader(trueValues: readonly string[], falseValues: readonly string[]): HasuraError {
  return new HasuraError(
    "bad-request",
    `x-hasura-use-backend-only-permissions:  Not a valid boolean text. True values are ${JSON.stringify(trueValues)} and  False values are ${JSON.stringify(falseValues)}. All values are case insensitive`,
  );
}

// --- JWT.

export function missingAuthorizationHeader(): HasuraError {
  return new HasuraError("invalid-headers", "Missing 'Authorization' or 'Cookie' header in JWT authentication mode");
}

export function malformedAuthorizationHeader(): HasuraError {
  return new HasuraError("invalid-headers", "Malformed Authorization header");
}

/** Several tokens of the request verify against the trusted secrets (multiple JWT secrets). */
export function multipleJwts(): HasuraError {
  return new HasuraError("invalid-headers", "Could not verify JWT: Multiple JWTs found");
}

/** `reason` is the `show` of the Haskell `jose` error Hasura reports (`JWTExpired`, `JWSError JWSInvalidSignature`...). */
export function invalidJwt(reason: string, cause?: unknown): HasuraError {
  return new HasuraError("invalid-jwt", `Could not verify JWT: ${reason}`, "$", 400, { cause });
}

/** Claims that do not parse (Aeson's messages, prefixed with the claim) or cannot be found. */
export function invalidClaims(message: string): HasuraError {
  return new HasuraError("jwt-invalid-claims", message);
}

/** `x-hasura-allowed-roles` or `x-hasura-default-role` absent from the claims. */
export function missingRoleClaim(name: string): HasuraError {
  return new HasuraError("jwt-missing-role-claims", `JWT claim does not contain ${name}`);
}

export function jwkFetchFailed(reason: string, cause: unknown): HasuraError {
  return new HasuraError("unexpected", `Error fetching JWK: ${reason}`, "$", 500, { cause });
}

export function jwkNotOk(url: string): HasuraError {
  return new HasuraError("unexpected", `Non-2xx response on fetching JWK from: ${url}`, "$", 500);
}

export function jwkParseFailed(url: string, cause: unknown): HasuraError {
  return new HasuraError("unexpected", `Error parsing JWK from url: ${url}`, "$", 500, { cause });
}

// --- Webhook.

export function webhookUnauthorized(): HasuraError {
  return new HasuraError("access-denied", "Authentication hook unauthorized this request", "$", 401);
}

export function webhookRequestFailed(cause: unknown): HasuraError {
  return new HasuraError("unexpected", "webhook authentication request failed", "$", 500, { cause });
}

/** A hook answer other than 200, or a body that is not a JSON object of session variables (`detail` says which). */
export function webhookInvalidResponse(detail?: string, cause?: unknown): HasuraError {
  const message = detail === undefined ? "Invalid response from authorization hook" : `Invalid response from authorization hook: ${detail}`;
  return new HasuraError("unexpected", message, "$", 500, { cause });
}

/**
 * JWT verification with jose, reporting failures with the texts of Hasura's Haskell `jose`
 * errors (`Could not verify JWT: JWTExpired`, `... JWSError JWSInvalidSignature`, ...).
 */
import { decodeJwt, decodeProtectedHeader, errors, type JWSHeaderParameters, type JWTPayload, jwtVerify } from "jose";
import { HasuraError, invalidJwt } from "../errors/index.js";
import type { JwksCache } from "./jwks.js";
import type { JwtConfig, JwtKeyType } from "./jwt-config.js";

const ALGORITHMS: Record<JwtKeyType, string[]> = {
  HS256: ["HS256"],
  HS384: ["HS384"],
  HS512: ["HS512"],
  RS256: ["RS256"],
  RS384: ["RS384"],
  RS512: ["RS512"],
  ES256: ["ES256"],
  ES384: ["ES384"],
  ES512: ["ES512"],
  Ed25519: ["EdDSA", "Ed25519"],
};

// With a key set any signing algorithm but `none` may be used; the key's own type decides.
const JWKS_ALGORITHMS = [...new Set(Object.values(ALGORITHMS).flat()), "PS256", "PS384", "PS512"];

/** Hasura's name for a jose failure (the `show` of its JWTError). */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "JWTExpired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "JWTNotYetValid";
    if (error.claim === "iat") return "JWTIssuedAtFuture";
    return `JWTClaimsSetDecodeError "${error.message}"`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "JWSError NoUsableKeys";
  if (error instanceof errors.JWTInvalid) return `JWTClaimsSetDecodeError "${error.message}"`;
  if (error instanceof errors.JWSInvalid) return `JWSError (JSONDecodeError "${error.message}")`;
  // A bad signature, a key of another type or an algorithm other than the configured one.
  return "JWSError JWSInvalidSignature";
}

/** Checks the compact form and the `alg` before jose runs, for Hasura's error texts. */
function precheck(token: string): void {
  const parts = token.split(".").length;
  if (parts !== 3) throw invalidJwt(`JWSError (CompactDecodeError Invalid number of parts: expected 3 parts; got ${parts})`);
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch (error) {
    throw invalidJwt(`JWSError (JSONDecodeError "${(error as Error).message}")`, error);
  }
  // Hasura only validates signatures made with a real algorithm: `none` leaves none to check.
  if (typeof alg !== "string" || alg.toLowerCase() === "none") throw invalidJwt("JWSError JWSNoSignatures");
}

function audienceMatches(payload: JWTPayload, accepted: string[]): boolean {
  if (payload.aud === undefined) return true;
  const auds = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  return auds.some((a) => accepted.includes(a));
}

/**
 * Verifies signature, `exp` and `nbf` (with allowed_skew), then `aud` and `iss` the way Hasura's
 * jose does: a claim the token lacks is not checked; one that is present must match.
 */
export async function verifyJwt(token: string, config: JwtConfig, jwks: JwksCache | null): Promise<JWTPayload> {
  precheck(token);
  if (config.issuer !== null) {
    // Hasura matches the issuer before verifying (to pick among several secrets).
    const iss = safeDecode(token)?.iss;
    if (iss !== undefined && iss !== config.issuer) throw invalidJwt("JWTNotInIssuer");
  }
  const options = {
    algorithms: config.type ? ALGORITHMS[config.type] : JWKS_ALGORITHMS,
    clockTolerance: config.allowedSkew,
  };
  let payload: JWTPayload;
  try {
    if (config.key) payload = (await jwtVerify(token, config.key, options)).payload;
    else if (jwks) payload = (await jwtVerify(token, (header: JWSHeaderParameters) => jwks.getKey(header), options)).payload;
    else throw new Error("no JWT key configured");
  } catch (error) {
    if (error instanceof HasuraError) throw error;
    throw invalidJwt(reasonOf(error), error);
  }
  if (config.audience !== null && !audienceMatches(payload, config.audience)) throw invalidJwt("JWTNotInAudience");
  if (config.issuer !== null && payload.iss !== undefined && payload.iss !== config.issuer) throw invalidJwt("JWTNotInIssuer");
  return payload;
}

function safeDecode(token: string): JWTPayload | null {
  try {
    return decodeJwt(token);
  } catch {
    return null;
  }
}

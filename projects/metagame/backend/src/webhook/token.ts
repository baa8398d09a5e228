/**
 * Who a bearer token names. MetaGame's webhook verified a wallet-signed token of its own; here
 * the tokens are our auth service's (Supabase-Auth-compatible): user access tokens (RS256/ES256/
 * EdDSA through the service's JWKS, or HS256 with its JWT secret), and the gateway's API keys
 * (HS256 with the JWT secret, role `anon` or `service_role`; Supabase's format, issuer "supabase",
 * so AUTH_JWT_ISSUER applies to user tokens only). See
 * https://supabase.com/docs/guides/auth/jwts and https://supabase.com/docs/guides/api/api-keys.
 */
import { createRemoteJWKSet, decodeProtectedHeader, type JWTPayload, errors as jose, jwtVerify } from "jose";
import type { BackendConfig } from "../config.js";
import { errors } from "../errors.js";

export type Identity =
  | { kind: "public" }
  | { kind: "admin" }
  | {
      kind: "player";
      /** The auth user's id, which is the player's id. */
      userId: string;
      /** The wallet the user signed in with (lower-case), when the token says so. */
      walletAddress: string | null;
      /** The token's expiry, seconds since the epoch. */
      exp: number;
    };

/** The token is not one we accept: the webhook answers 401. */
export class TokenRejected extends Error {
  override name = "TokenRejected";
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "EdDSA"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** GoTrue's identity subject for a wallet sign-in: `web3:<chain>:<address>` (internal/api/web3.go). */
const WEB3_ETHEREUM_SUBJECT = /^web3:ethereum:(0x[0-9a-fA-F]{40})$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The Ethereum address of a user who signed in with a wallet ("Sign in with Web3"): GoTrue marks
 * them in app_metadata (provider / providers `web3`, which users cannot edit) and copies the
 * identity into user_metadata: `sub` = `web3:ethereum:<address>` and `custom_claims.address`.
 * user_metadata is editable by its user, so the address is a claim; it is read once, when the
 * player is created.
 */
export function walletAddressOf(payload: JWTPayload): string | null {
  const app = record(payload.app_metadata);
  const providers = Array.isArray(app.providers) ? app.providers : [];
  if (app.provider !== "web3" && !providers.includes("web3")) return null;
  const user = record(payload.user_metadata);
  const subject = typeof user.sub === "string" ? WEB3_ETHEREUM_SUBJECT.exec(user.sub)?.[1] : undefined;
  const claims = record(user.custom_claims);
  const claimed =
    claims.chain === "ethereum" && typeof claims.address === "string" && ADDRESS.test(claims.address) ? claims.address : undefined;
  const address = subject ?? claimed;
  return address ? address.toLowerCase() : null;
}

/** Failures of the verifier itself (the JWKS unreachable or unreadable), not of the token. */
function isVerifierFailure(error: unknown): boolean {
  return error instanceof jose.JWKSTimeout || error instanceof jose.JWKSInvalid || !(error instanceof jose.JOSEError);
}

export interface TokenVerifier {
  /** The identity of a verified token; TokenRejected for a token we refuse. */
  identify(token: string): Promise<Identity>;
}

export function createTokenVerifier(config: Pick<BackendConfig, "authJwksUrl" | "authJwtSecret" | "authJwtIssuer">): TokenVerifier {
  // jose keeps the fetched keys and fetches again when a token names a key id it does not know.
  const jwks = config.authJwksUrl ? createRemoteJWKSet(new URL(config.authJwksUrl), { timeoutDuration: 5_000 }) : null;
  const secret = config.authJwtSecret ? new TextEncoder().encode(config.authJwtSecret) : null;

  async function verified(token: string): Promise<JWTPayload> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new TokenRejected("not a JWS");
    }
    try {
      if (alg === "HS256" && secret) return (await jwtVerify(token, secret, { algorithms: ["HS256"] })).payload;
      if (alg && ASYMMETRIC.includes(alg) && jwks) return (await jwtVerify(token, jwks, { algorithms: ASYMMETRIC })).payload;
    } catch (error) {
      if (isVerifierFailure(error)) throw errors.upstream(`the auth service's keys could not be read: ${(error as Error).message}`);
      throw new TokenRejected((error as Error).message);
    }
    throw new TokenRejected(`no key configured for ${alg ?? "a token without alg"}`);
  }

  return {
    async identify(token) {
      const payload = await verified(token);
      if (payload.role === "anon") return { kind: "public" };
      if (payload.role === "service_role") return { kind: "admin" };
      if (payload.role !== "authenticated") throw new TokenRejected(`role ${String(payload.role)} is not accepted`);
      if (config.authJwtIssuer && payload.iss !== config.authJwtIssuer) throw new TokenRejected("unexpected issuer");
      if (typeof payload.exp !== "number") throw new TokenRejected("a user token must expire");
      if (typeof payload.sub !== "string" || !UUID.test(payload.sub)) throw new TokenRejected("the subject is not a user id");
      return { kind: "player", userId: payload.sub.toLowerCase(), walletAddress: walletAddressOf(payload), exp: payload.exp };
    },
  };
}

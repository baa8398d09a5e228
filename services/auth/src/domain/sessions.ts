/**
 * Sessions and the token response: a sign-in creates a session, its first refresh token and its
 * amr claim, and answers access token + refresh token + user (GoTrue's `AccessTokenResponse`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import { insertRefreshToken } from "../db/refresh-tokens.js";
import type { AmrClaimRow, UserRow } from "../db/rows.js";
import { insertSession, recordAmrClaim, type SessionContext, sessionContext } from "../db/sessions.js";
import { updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { userJson } from "./user-json.js";

/** How a session was established (the `amr` methods). */
export type AuthMethod =
  | "password"
  | "anonymous"
  | "otp"
  | "recovery"
  | "invite"
  | "magiclink"
  | "email/signup"
  | "email_change"
  | "oauth"
  | SecondFactorMethod;

/** The methods of a second factor: a session holding one of them is aal2 (GoTrue's AMRClaim.IsAAL2Claim). */
export type SecondFactorMethod = "totp" | "mfa/phone";
const SECOND_FACTOR_METHODS: readonly string[] = ["totp", "mfa/phone", "mfa/webauthn"];

/** GoTrue's Session.CalculateAALAndAMR: aal2 when any amr claim is a second factor. */
export const assuranceLevel = (amr: readonly AmrClaimRow[]): "aal1" | "aal2" =>
  amr.some((claim) => SECOND_FACTOR_METHODS.includes(claim.authentication_method)) ? "aal2" : "aal1";

export interface TokenResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
  weak_password?: { message: string; reasons: string[] };
  provider_token?: string;
  provider_refresh_token?: string;
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** GoTrue's refresh tokens: 12 characters of lower-case base32 from the system's CSPRNG. */
export function newRefreshToken(): string {
  return [...randomBytes(12)].map((byte) => BASE32[byte & 31]).join("");
}

export async function accessToken(deps: AuthDeps, user: UserRow, sessionId: string, amr: AmrClaimRow[]) {
  const { jwt } = deps.config;
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + jwt.exp;
  const token = await deps.keys.sign({
    iss: jwt.issuer,
    sub: user.id,
    aud: user.aud ?? jwt.aud,
    exp,
    iat,
    email: user.email ?? "",
    phone: user.phone ?? "",
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: user.role ?? "",
    aal: assuranceLevel(amr),
    amr: amr.map((claim) => ({ method: claim.authentication_method, timestamp: claim.timestamp })),
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  });
  return { token, exp };
}

/** The response for a session: a fresh access token next to the given refresh token. */
export async function tokenResponse(deps: AuthDeps, user: UserRow, sessionId: string, context: SessionContext, refreshToken: string) {
  const { amr, identities, factors } = context;
  const { token, exp } = await accessToken(deps, user, sessionId, amr);
  const response: TokenResponse = {
    access_token: token,
    token_type: "bearer",
    expires_in: deps.config.jwt.exp,
    expires_at: exp,
    refresh_token: refreshToken,
    user: userJson(user, identities, factors),
  };
  return response;
}

/** Starts a session for a user who just authenticated with `method`. */
export async function startSession(q: Queryable, deps: AuthDeps, meta: RequestMeta, user: UserRow, method: AuthMethod) {
  const sessionId = randomUUID();
  const t = deps.tables;
  await insertSession(q, t, { id: sessionId, userId: user.id, userAgent: meta.userAgent, ip: meta.ip });
  const refreshToken = newRefreshToken();
  await insertRefreshToken(q, t, { token: refreshToken, userId: user.id, sessionId, parent: null });
  await recordAmrClaim(q, t, sessionId, method);
  const signedIn = await updateUser(q, t, user.id, { last_sign_in_at: NOW });
  return tokenResponse(deps, signedIn, sessionId, await sessionContext(q, t, user.id, sessionId), refreshToken);
}

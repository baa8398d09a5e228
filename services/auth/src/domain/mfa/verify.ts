/**
 * POST /factors/{id}/verify (GoTrue's VerifyFactor, supabase/auth internal/api/mfa.go and
 * token.go updateMFASessionAndClaims): a code for a challenge made from the same IP address
 * raises the session to aal2. In one transaction: the challenge is used up, the factor is
 * verified (its first time), the session gets the factor's amr claim, its refresh token is
 * replaced, the user's other aal1 sessions end and the other unverified factors of the type go.
 * A TOTP code is accepted once per factor, even on a new challenge (RFC 6238 section 5.2).
 */
import { timingSafeEqual } from "node:crypto";
import {
  claimChallenge,
  claimTotpStep,
  deleteChallenge,
  deleteUnverifiedFactors,
  findChallenge,
  markFactorVerified,
} from "../../db/factors.js";
import { replaceSessionTokens } from "../../db/refresh-tokens.js";
import type { FactorRow, UserRow } from "../../db/rows.js";
import { deleteSessionsBelowAal2, recordAmrClaim, sessionContext, setSessionAal } from "../../db/sessions.js";
import { findUserById } from "../../db/users.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import type { Authenticated } from "../current-user.js";
import { errors } from "../errors.js";
import { isUuid } from "../identifiers.js";
import { sendNotices } from "../notifications.js";
import { tokenHash } from "../one-time-tokens.js";
import { newRefreshToken, type SecondFactorMethod, type TokenResponse, tokenResponse } from "../sessions.js";
import { millis } from "../time.js";
import { sessionOf } from "./enroll.js";
import { totpStep } from "./totp.js";

export interface VerifyInput {
  challengeId?: string | undefined;
  code?: string | undefined;
}

export const FACTOR_METHODS: Record<"totp" | "phone", SecondFactorMethod> = { totp: "totp", phone: "mfa/phone" };

export async function verifyFactor(
  deps: AuthDeps,
  meta: RequestMeta,
  auth: Authenticated,
  factor: FactorRow,
  input: VerifyInput,
): Promise<TokenResponse> {
  const { mfa } = deps.config;
  if (factor.factor_type === "webauthn") throw errors.mfaVerifyDisabled("WebAuthn");
  if (!input.code) throw errors.codeRequired();
  if (factor.factor_type === "totp" && !mfa.totpVerify) throw errors.mfaVerifyDisabled("TOTP");
  if (factor.factor_type === "phone" && !mfa.phoneVerify) throw errors.mfaVerifyDisabled("Phone");
  if (!isUuid(input.challengeId)) throw errors.challengeIdInvalid();
  const session = sessionOf(auth);
  const challengeId = input.challengeId;
  const challenge = await findChallenge(deps.db, deps.tables, factor.id, challengeId, meta.ip ?? "0.0.0.0");
  if (!challenge) throw errors.challengeNotFound();
  if (challenge.verified_at !== null || !challenge.same_ip) throw errors.challengeIpMismatch();
  if (millis(challenge.created_at) + mfa.challengeExpiryMs < Date.now()) {
    await deleteChallenge(deps.db, deps.tables, challenge.id);
    throw errors.challengeExpired(challenge.id);
  }
  const step = await checkCode(deps, factor, challenge.id, challenge.otp_code, input.code);

  const firstTime = factor.status !== "verified";
  const t = deps.tables;
  const result = await deps.db.transaction(async (tx) => {
    // A concurrent verify of the same challenge, or of the same TOTP code, finds it taken.
    if (!(await claimChallenge(tx, t, challenge.id))) throw errors.challengeIpMismatch();
    if (step !== undefined && !(await claimTotpStep(tx, t, factor.id, step))) throw errors.totpCodeInvalid();
    const user = (await findUserById(tx, t, auth.user.id)) as UserRow;
    await audit(tx, deps, meta, user, "verification_attempted", {
      factor_id: factor.id,
      challenge_id: challenge.id,
      factor_type: factor.factor_type,
    });
    if (firstTime) await markFactorVerified(tx, t, factor.id);
    await recordAmrClaim(tx, t, session.id, FACTOR_METHODS[factor.factor_type as "totp" | "phone"]);
    const refreshToken = newRefreshToken();
    await replaceSessionTokens(tx, t, user.id, session.id, refreshToken);
    await setSessionAal(tx, t, session.id, "aal2", factor.id);
    await deleteSessionsBelowAal2(tx, t, user.id);
    await deleteUnverifiedFactors(tx, t, user.id, factor.factor_type);
    const context = await sessionContext(tx, t, user.id, session.id);
    return { user, response: await tokenResponse(deps, user, session.id, context, refreshToken) };
  });
  if (firstTime) {
    await sendNotices(deps, [{ kind: "mfa_factor_enrolled_notification", user: result.user, factorType: factor.factor_type }]);
  }
  return result.response;
}

/** The TOTP time step of a right code (undefined for a phone code); throws GoTrue's answer for a wrong one. */
async function checkCode(
  deps: AuthDeps,
  factor: FactorRow,
  challengeId: string,
  storedHash: string | null,
  code: string,
): Promise<number | undefined> {
  if (factor.factor_type === "totp") {
    const step = factor.secret ? totpStep(factor.secret, code) : undefined;
    if (step === undefined) throw errors.totpCodeInvalid();
    return step;
  }
  if (deps.smsCodes) {
    // Twilio Verify made and checks the code (GoTrue answers its 403 otp_expired then).
    await deps.smsCodes.check(factor.phone ?? "", code).catch(() => {
      throw errors.otpInvalid();
    });
    return undefined;
  }
  const given = Buffer.from(tokenHash(challengeId, code));
  if (storedHash === null || storedHash.length !== given.length || !timingSafeEqual(given, Buffer.from(storedHash))) {
    throw errors.phoneCodeInvalid();
  }
  return undefined;
}

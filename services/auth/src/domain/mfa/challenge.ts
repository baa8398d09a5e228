/**
 * POST /factors/{id}/challenge (GoTrue's ChallengeFactor, supabase/auth internal/api/mfa.go): a
 * challenge bound to the caller's IP address that expires after MFA_CHALLENGE_EXPIRY_DURATION.
 * For a phone factor a code is texted (MFA_PHONE_TEMPLATE), at most once per
 * MFA_PHONE_MAX_FREQUENCY; only a hash of it is stored (as for one-time codes). The challenge is written in the
 * transaction that sends the text, so a text the provider refuses leaves no challenge.
 */
import { randomUUID } from "node:crypto";
import { insertChallenge, lockFactor } from "../../db/factors.js";
import type { ChallengeRow, FactorRow, UserRow } from "../../db/rows.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import { errors } from "../errors.js";
import { generateOtp, tokenHash } from "../one-time-tokens.js";
import { smsChannel } from "../sms-readiness.js";
import { millis } from "../time.js";

export interface ChallengeAnswer {
  id: string;
  type: FactorRow["factor_type"];
  expires_at: number;
}

export async function challengeFactor(
  deps: AuthDeps,
  meta: RequestMeta,
  user: UserRow,
  factor: FactorRow,
  channel: string | undefined,
): Promise<ChallengeAnswer> {
  const { mfa } = deps.config;
  if (factor.factor_type === "webauthn") throw errors.mfaVerifyDisabled("WebAuthn");
  if (factor.factor_type === "totp" && !mfa.totpVerify) throw errors.mfaVerifyDisabled("TOTP");
  if (factor.factor_type === "phone" && !mfa.phoneVerify) throw errors.mfaVerifyDisabled("Phone");
  const via = factor.factor_type === "phone" ? smsChannel(deps.config.sms, channel) : undefined;
  const ip = meta.ip ?? "0.0.0.0";
  const id = randomUUID();
  const challenge = await deps.db.transaction(async (tx) => {
    let otpHash: string | undefined;
    let otp = "";
    if (via) {
      // The factor's row lock makes concurrent challenges of one phone factor take turns.
      checkFrequency(deps, (await lockFactor(tx, deps.tables, factor.id)) ?? factor);
      otp = generateOtp(mfa.phoneOtpLength);
      otpHash = tokenHash(id, otp);
    }
    const written = await insertChallenge(tx, deps.tables, { id, factorId: factor.id, ip, otpHash });
    await audit(tx, deps, meta, user, "challenge_created", { factor_id: factor.id, factor_status: factor.status });
    if (via) await textCode(deps, user, factor, otp, via);
    return written;
  });
  return { id: challenge.id, type: factor.factor_type, expires_at: expiresAt(deps, challenge) };
}

/** GoTrue answers 429 over_sms_send_rate_limit while the last text is more recent than the frequency. */
function checkFrequency(deps: AuthDeps, factor: FactorRow) {
  if (!factor.last_challenged_at) return;
  const waitMs = millis(factor.last_challenged_at) + deps.config.mfa.phoneMaxFrequencyMs - Date.now();
  if (waitMs > 0) throw errors.smsSendTooSoon(Math.ceil(waitMs / 1000));
}

async function textCode(deps: AuthDeps, user: UserRow, factor: FactorRow, otp: string, via: "sms" | "whatsapp") {
  await deps.messenger.send({
    kind: "mfa_challenge",
    channel: "sms",
    userId: user.id,
    to: factor.phone ?? "",
    otp,
    tokenHash: "",
    via,
    template: deps.config.mfa.phoneTemplate,
    email: user.email ?? "",
    data: user.raw_user_meta_data ?? {},
  });
}

export const expiresAt = (deps: AuthDeps, challenge: Pick<ChallengeRow, "created_at">): number =>
  Math.floor((millis(challenge.created_at) + deps.config.mfa.challengeExpiryMs) / 1000);

/**
 * Multi-factor authentication settings, GoTrue's MFAConfiguration (supabase/auth
 * internal/conf/configuration.go) under the same names and defaults: TOTP on, phone factors off,
 * challenges and unverified factors expiring after at least 300 s, ten factors at most, and a
 * limit on challenge and verify requests. WebAuthn factors are not served: their switches are
 * read so that start-up can say so (server.ts), and requests answer GoTrue's "disabled" errors.
 */
import { boolean, ConfigError, custom, type Env, integer, readConfig, string } from "@platform/core";
import { parseTemplate, TemplateError } from "../mail/go-template.js";
import { duration, names, requestRate } from "./values.js";

/** GoTrue raises shorter challenge and factor lifetimes to this floor. */
const MIN_EXPIRY_MS = 300_000;
export const DEFAULT_MFA_PHONE_TEMPLATE = "Your code is {{ .Code }}";

export function readMfa(env: Env) {
  const mfa = readConfig(env, {
    challengeExpiryMs: custom(names("MFA_CHALLENGE_EXPIRY_DURATION"), (raw) => seconds(raw, 300)),
    factorExpiryMs: custom(names("MFA_FACTOR_EXPIRY_DURATION"), duration(MIN_EXPIRY_MS)),
    /** Challenge and verify requests per minute per client key (a burst of 30). */
    rateLimitChallengeAndVerify: custom(names("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY"), requestRate(15)),
    maxEnrolledFactors: integer(names("MFA_MAX_ENROLLED_FACTORS"), 10, { min: 0 }),
    maxVerifiedFactors: integer(names("MFA_MAX_VERIFIED_FACTORS"), 10, { min: 0 }),
    totpEnroll: boolean(names("MFA_TOTP_ENROLL_ENABLED"), true),
    totpVerify: boolean(names("MFA_TOTP_VERIFY_ENABLED"), true),
    phoneEnroll: boolean(names("MFA_PHONE_ENROLL_ENABLED"), false),
    phoneVerify: boolean(names("MFA_PHONE_VERIFY_ENABLED"), false),
    phoneOtpLength: integer(names("MFA_PHONE_OTP_LENGTH"), 6, { min: 0 }),
    phoneMaxFrequencyMs: custom(names("MFA_PHONE_MAX_FREQUENCY"), duration(60_000)),
    phoneTemplate: string(names("MFA_PHONE_TEMPLATE"), DEFAULT_MFA_PHONE_TEMPLATE),
    webAuthnEnroll: boolean(names("MFA_WEB_AUTHN_ENROLL_ENABLED"), false),
    webAuthnVerify: boolean(names("MFA_WEB_AUTHN_VERIFY_ENABLED"), false),
  });
  const problems: string[] = [];
  try {
    parseTemplate(mfa.phoneTemplate);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    problems.push(`AUTH_MFA_PHONE_TEMPLATE cannot be parsed: ${error.message}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...mfa,
    challengeExpiryMs: Math.max(mfa.challengeExpiryMs, MIN_EXPIRY_MS),
    factorExpiryMs: Math.max(mfa.factorExpiryMs, MIN_EXPIRY_MS),
    // GoTrue: a length outside 6-10 means the default 6; a zero frequency means one minute.
    phoneOtpLength: mfa.phoneOtpLength < 6 || mfa.phoneOtpLength > 10 ? 6 : mfa.phoneOtpLength,
    phoneMaxFrequencyMs: mfa.phoneMaxFrequencyMs || 60_000,
  };
}

/** GoTrue reads MFA_CHALLENGE_EXPIRY_DURATION as a number of seconds (a float). */
function seconds(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback * 1000;
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`must be a number of seconds, got "${raw}"`);
  return value * 1000;
}

export type MfaConfig = ReturnType<typeof readMfa>;

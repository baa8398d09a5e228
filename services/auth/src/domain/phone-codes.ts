/**
 * Codes sent by SMS (GoTrue's sendPhoneConfirmation in internal/api/phone.go): a phone
 * confirmation (sign-up and /otp), a phone change, or a reauthentication nonce. At most one per
 * SMS_MAX_FREQUENCY per user and purpose. A number listed in SMS_TEST_OTP (until
 * SMS_TEST_OTP_VALID_UNTIL, when set) gets its fixed code and no SMS is sent, its message id being
 * `test-otp`. Runs inside the caller's transaction: an SMS that cannot be sent leaves no code.
 */
import type { Queryable } from "@platform/core";
import type { OneTimeTokenType, UserRow } from "../db/rows.js";
import { type UserPatch, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { errors } from "./errors.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { secondsUntil } from "./time.js";

export type PhonePurpose = "confirmation" | "phone_change" | "reauthentication";

const TOKEN_TYPES: Record<PhonePurpose, OneTimeTokenType> = {
  confirmation: "confirmation_token",
  phone_change: "phone_change_token",
  reauthentication: "reauthentication_token",
};

/** The fixed code configured for this number, while SMS_TEST_OTP_VALID_UNTIL has not passed. */
export function testOtpFor(deps: AuthDeps, phone: string, now = Date.now()): string | undefined {
  const { testOtp, testOtpValidUntil } = deps.config.sms;
  if (testOtpValidUntil !== undefined && now > testOtpValidUntil) return undefined;
  return testOtp[phone];
}

function sentAt(user: UserRow, purpose: PhonePurpose) {
  if (purpose === "phone_change") return user.phone_change_sent_at;
  if (purpose === "reauthentication") return user.reauthentication_sent_at;
  return user.confirmation_sent_at;
}

function patch(purpose: PhonePurpose, phone: string, hash: string): UserPatch {
  if (purpose === "phone_change") return { phone_change: phone, phone_change_token: hash, phone_change_sent_at: NOW };
  if (purpose === "reauthentication") return { reauthentication_token: hash, reauthentication_sent_at: NOW };
  return { confirmation_token: hash, confirmation_sent_at: NOW };
}

export interface PhoneCodeResult {
  user: UserRow;
  /** The provider's id of the SMS (`test-otp` for a test number); answered as `message_id`. */
  messageId: string | undefined;
}

export async function sendPhoneCode(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  request: { purpose: PhonePurpose; phone: string; via?: "sms" | "whatsapp" | undefined },
): Promise<PhoneCodeResult> {
  const { config, tables } = deps;
  const { purpose, phone } = request;
  const wait = secondsUntil(sentAt(user, purpose), config.sms.maxFrequencyMs);
  if (wait > 0) throw errors.smsSendTooSoon(wait);
  const fixed = testOtpFor(deps, phone);
  const { otp, hash } = await issueOneTimeToken(q, tables, {
    userId: user.id,
    type: TOKEN_TYPES[purpose],
    identifier: phone,
    length: config.sms.otpLength,
    ...(fixed !== undefined ? { otp: fixed } : {}),
  });
  const updated = await updateUser(q, tables, user.id, patch(purpose, phone, hash));
  if (fixed !== undefined) return { user: updated, messageId: "test-otp" };
  const delivered = await deps.messenger.send({
    kind: purpose,
    channel: "sms",
    userId: user.id,
    to: phone,
    otp,
    tokenHash: hash,
    via: request.via,
    email: user.email ?? "",
    data: user.raw_user_meta_data ?? {},
  });
  return { user: updated, messageId: delivered?.messageId };
}

/**
 * Codes sent by SMS (GoTrue's sendPhoneConfirmation in internal/api/phone.go): a phone
 * confirmation (sign-up and /otp), a phone change, or a reauthentication nonce. At most one per
 * SMS_MAX_FREQUENCY per user and purpose. A number listed in SMS_TEST_OTP (until
 * SMS_TEST_OTP_VALID_UNTIL, when set) gets its fixed code and no SMS is sent, its message id being
 * `test-otp`. Runs inside the caller's transaction: an SMS that cannot be sent leaves no code. The
 * check and the writes are one statement (claimNewCode).
 */
import type { Queryable } from "@platform/core";
import type { OneTimeTokenType, UserRow } from "../db/rows.js";
import type { UserPatch } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { errors } from "./errors.js";
import { type CodeRequest, claimNewCode, secondsBeforeNextCode } from "./one-time-tokens.js";

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

const SENT_AT = {
  confirmation: "confirmation_sent_at",
  phone_change: "phone_change_sent_at",
  reauthentication: "reauthentication_sent_at",
} as const satisfies Record<PhonePurpose, CodeRequest["sentAt"]>;

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

export interface PhoneCodeRequest {
  purpose: PhonePurpose;
  phone: string;
  via?: "sms" | "whatsapp" | undefined;
  /** An audit entry written with the code. */
  audit?: CodeRequest["audit"];
}

function codeRequest(deps: AuthDeps, request: PhoneCodeRequest): CodeRequest {
  const { purpose, phone } = request;
  const fixed = testOtpFor(deps, phone);
  return {
    type: TOKEN_TYPES[purpose],
    identifier: phone,
    length: deps.config.sms.otpLength,
    ...(fixed !== undefined ? { otp: fixed } : {}),
    patch: (hash) => patch(purpose, phone, hash),
    sentAt: SENT_AT[purpose],
    frequencyMs: deps.config.sms.maxFrequencyMs,
    audit: request.audit,
  };
}

/** Issues and texts a code; undefined (nothing written, nothing sent) when the last one went out too recently. */
export async function sendPhoneCodeIfDue(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  request: PhoneCodeRequest,
): Promise<PhoneCodeResult | undefined> {
  const code = codeRequest(deps, request);
  const claimed = await claimNewCode(q, deps, user.id, code);
  if (!claimed) return undefined;
  const { user: updated, otp, hash } = claimed;
  if (code.otp !== undefined) return { user: updated, messageId: "test-otp" };
  const delivered = await deps.messenger.send({
    kind: request.purpose,
    channel: "sms",
    userId: updated.id,
    to: request.phone,
    otp,
    tokenHash: hash,
    via: request.via,
    email: updated.email ?? "",
    data: updated.raw_user_meta_data ?? {},
  });
  return { user: updated, messageId: delivered?.messageId };
}

/** As {@link sendPhoneCodeIfDue}, a code asked for too soon being GoTrue's 429 over_sms_send_rate_limit. */
export async function sendPhoneCode(q: Queryable, deps: AuthDeps, user: UserRow, request: PhoneCodeRequest): Promise<PhoneCodeResult> {
  const sent = await sendPhoneCodeIfDue(q, deps, user, request);
  if (sent) return sent;
  throw errors.smsSendTooSoon(await secondsBeforeNextCode(q, deps, user.id, codeRequest(deps, request)));
}

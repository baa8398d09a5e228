/**
 * Reauthentication nonces: GET /reauthenticate creates one (sent to the email, else the phone);
 * PUT /user with a new password consumes it when SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION is on.
 */
import { timingSafeEqual } from "node:crypto";
import type { Queryable } from "@platform/core";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { UserRow } from "../db/rows.js";
import { updateUser } from "../db/users.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { sendEmailCode } from "./email-codes.js";
import { errors } from "./errors.js";
import { tokenHash } from "./one-time-tokens.js";
import { sendPhoneCode } from "./phone-codes.js";
import { providerApproves } from "./sms-readiness.js";
import { millis } from "./time.js";

/** GoTrue answers `{}`, with the SMS provider's `message_id` when it reported one (internal/api/reauthenticate.go). */
export async function requestReauthentication(deps: AuthDeps, meta: RequestMeta, user: UserRow): Promise<{ message_id?: string }> {
  const email = user.email ?? "";
  const phone = user.phone ?? "";
  if (email === "" && phone === "") throw errors.reauthenticationNeedsIdentifier();
  if (email !== "" && !user.email_confirmed_at) throw errors.verifyEmailFirst();
  if (email === "" && !user.phone_confirmed_at) throw errors.verifyPhoneFirst();
  const audit = { meta, action: "user_reauthenticate_requested" as const };
  return deps.db.transaction(async (tx) => {
    if (email === "") {
      const { messageId } = await sendPhoneCode(tx, deps, user, { purpose: "reauthentication", phone, audit });
      return messageId ? { message_id: messageId } : {};
    }
    await sendEmailCode(tx, deps, user, "reauthentication", { audit });
    return {};
  });
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Checks the nonce against the user's stored one and consumes it (inside the caller's transaction). */
export async function consumeNonce(q: Queryable, deps: AuthDeps, user: UserRow, nonce: string): Promise<void> {
  if (!user.reauthentication_token || !user.reauthentication_sent_at) throw errors.reauthenticationNotValid();
  const byEmail = (user.email ?? "") !== "";
  const identifier = byEmail ? (user.email as string) : (user.phone ?? "");
  const lifetimeMs = (byEmail ? deps.config.mailer.otpExpSeconds : deps.config.sms.otpExpSeconds) * 1000;
  if (!byEmail && deps.smsCodes) {
    // Twilio Verify made the nonce: it alone can say whether it is valid, and GoTrue answers its
    // refusal as an invalid code (internal/api/reauthenticate.go).
    if (!(await providerApproves(deps, identifier, nonce))) throw errors.otpInvalid();
  } else {
    const fresh = millis(user.reauthentication_sent_at) + lifetimeMs > Date.now();
    if (!fresh || !sameHash(tokenHash(identifier, nonce), user.reauthentication_token)) throw errors.reauthenticationNotValid();
  }
  await updateUser(q, deps.tables, user.id, { reauthentication_token: "", reauthentication_sent_at: null });
  await deleteOneTimeTokens(q, deps.tables, user.id, "reauthentication_token");
}

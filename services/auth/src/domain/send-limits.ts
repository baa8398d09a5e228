/**
 * RATE_LIMIT_EMAIL_SENT and RATE_LIMIT_SMS_SENT: how many emails and SMS the service sends, all
 * users together. The rules follow GoTrue (internal/api/mail.go sendEmail and
 * internal/api/phone.go sendPhoneConfirmation in supabase/auth):
 * - email: a limit of zero refuses every mail; otherwise the limit applies only while
 *   MAILER_AUTOCONFIRM is off. An email change is one send even when it mails both the current
 *   and the new address (GoTrue checks the limit once per change), so only the mail to the new
 *   address counts.
 * - SMS: the limit applies only while SMS_AUTOCONFIRM is off. A number with a current
 *   SMS_TEST_OTP is never sent anything (phone-codes.ts), so it takes nothing from the bucket.
 * A refused send answers 429 before anything is handed to the messenger; call sites send inside
 * the transaction that stored the code, so the refusal also undoes the code.
 *
 * The buckets themselves (memory, or Redis shared by every instance) are made by the HTTP layer's
 * rate-limit module; this module only decides when a send takes one.
 */
import type { AuthConfig } from "../config.js";
import { errors } from "./errors.js";
import type { Messenger, OutgoingMessage } from "./messenger.js";

/** A shared allowance of sends; `take` is true when one more send may go out. */
export interface SendBucket {
  take(): Promise<boolean>;
}

export interface SendBuckets {
  email: SendBucket;
  sms: SendBucket;
}

type SendLimitConfig = {
  rateLimit: Pick<AuthConfig["rateLimit"], "emailSent">;
  mailer: Pick<AuthConfig["mailer"], "autoconfirm">;
  sms: Pick<AuthConfig["sms"], "autoconfirm">;
};

async function checkEmail(message: OutgoingMessage, config: SendLimitConfig, bucket: SendBucket): Promise<void> {
  // The second mail of an email change (to the current address) goes with the first.
  if (message.kind === "email_change_current") return;
  if (config.rateLimit.emailSent.events === 0) throw errors.emailRateLimited();
  if (config.mailer.autoconfirm) return;
  if (!(await bucket.take())) throw errors.emailRateLimited();
}

async function checkSms(config: SendLimitConfig, bucket: SendBucket): Promise<void> {
  if (config.sms.autoconfirm) return;
  if (!(await bucket.take())) throw errors.smsRateLimited();
}

/** Wraps `inner` so every email and SMS first takes a send from its bucket (or is refused with GoTrue's 429). */
export function limitingSends(inner: Messenger, buckets: SendBuckets, config: SendLimitConfig): Messenger {
  return {
    async send(message) {
      if (message.channel === "email") await checkEmail(message, config, buckets.email);
      else await checkSms(config, buckets.sms);
      return inner.send(message);
    },
  };
}

/**
 * Outgoing one-time codes (confirmation, email or phone change, reauthentication nonce, invite,
 * password recovery).
 * Email goes out over SMTP when it is configured (src/mail), SMS through the configured provider
 * (src/sms); without either the default messenger only logs that a message was not delivered
 * (never its code).
 * Tests plug in a messenger that records the messages.
 */
import type { Logger } from "@platform/core";
import { AuthError, errors, SmsProviderError } from "./errors.js";

export type MessageKind =
  | "confirmation"
  | "email_change_new"
  | "email_change_current"
  | "phone_change"
  | "reauthentication"
  | "invite"
  | "recovery"
  | "magiclink"
  | "mfa_challenge"
  | NotificationKind;

/** Mails that tell the user something happened (each behind its MAILER_NOTIFICATIONS_*_ENABLED switch). */
export type NotificationKind =
  | "password_changed_notification"
  | "email_changed_notification"
  | "phone_changed_notification"
  | "identity_linked_notification"
  | "identity_unlinked_notification"
  | "mfa_factor_enrolled_notification"
  | "mfa_factor_unenrolled_notification";

export interface OutgoingMessage {
  kind: MessageKind;
  channel: "email" | "sms";
  userId: string;
  /** The address or phone number (E.164 digits) the code goes to. */
  to: string;
  /** The code the user types. */
  otp: string;
  /** What an email link would carry (`token=`): the stored hash. */
  tokenHash: string;
  /** Where the link should lead after verification (invites, recovery), when the request named a valid one. */
  redirectTo?: string | undefined;
  /** The user's current email (`{{ .Email }}` in templates). */
  email?: string | undefined;
  /** The address an email change goes to (`{{ .NewEmail }}`). */
  newEmail?: string | undefined;
  /** The user's user_metadata (`{{ .Data }}`). */
  data?: Record<string, unknown> | undefined;
  /** Notifications: what changed (`{{ .OldEmail }}`, `{{ .Phone }}`, `{{ .OldPhone }}`, `{{ .Provider }}`). */
  oldEmail?: string | undefined;
  phone?: string | undefined;
  oldPhone?: string | undefined;
  provider?: string | undefined;
  /** For SMS: the text's template when it is not SMS_TEMPLATE (MFA codes use MFA_PHONE_TEMPLATE). */
  template?: string | undefined;
  /** Notifications of MFA factors: the factor's type (`{{ .FactorType }}`). */
  factorType?: string | undefined;
  /** For SMS: the channel the request asked for (`channel` of /otp and /signup); WhatsApp only through Twilio. */
  via?: "sms" | "whatsapp" | undefined;
}

/** What a provider reports for a sent message (GoTrue answers an SMS's `message_id`). */
export interface Delivered {
  messageId?: string | undefined;
}

export interface Messenger {
  send(message: OutgoingMessage): Promise<Delivered | undefined>;
}

/**
 * A provider that makes and checks the codes itself (Twilio Verify): the code the user types is
 * not the one the service stored, so /verify and reauthentication ask the provider. `check`
 * throws when the provider does not approve the code (or cannot be asked).
 */
export interface SmsCodeChecker {
  check(phone: string, code: string): Promise<void>;
}

export function undeliveredMessenger(logger: Logger): Messenger {
  return {
    async send(message) {
      logger.warn(
        { kind: message.kind, channel: message.channel, userId: message.userId },
        "message delivery is not implemented yet; not sent",
      );
      return undefined;
    },
  };
}

/** What GoTrue answers when a mail of this kind cannot be sent (internal/api/mail.go); phone changes and MFA codes go only by SMS. */
const EMAIL_FAILURE_MESSAGES: Record<Exclude<MessageKind, "phone_change" | "mfa_challenge">, string> = {
  confirmation: "Error sending confirmation email",
  invite: "Error sending invite email",
  email_change_new: "Error sending email change email",
  email_change_current: "Error sending email change email",
  reauthentication: "Error sending reauthentication email",
  recovery: "Error sending recovery email",
  magiclink: "Error sending magic link email",
  password_changed_notification: "Error sending password changed notification email",
  email_changed_notification: "Error sending email changed notification email",
  phone_changed_notification: "Error sending phone changed notification email",
  identity_linked_notification: "Error sending identity linked notification email",
  identity_unlinked_notification: "Error sending identity unlinked notification email",
  mfa_factor_enrolled_notification: "Error sending MFA factor enrolled notification email",
  mfa_factor_unenrolled_notification: "Error sending MFA factor unenrolled notification email",
};

/** What an SMS failure reports as its cause when it is not a provider's own answer (a bug, an unexpected throw). */
const UNEXPECTED_SMS_FAILURE = "unexpected error";

/**
 * Turns a delivery failure into GoTrue's answer, logging the cause. Email: GoTrue's 500 (no error
 * code of its own: `unexpected_failure`) with the message for the mail's kind. SMS: GoTrue's 422
 * `sms_send_failed`, "Error sending <kind> OTP to provider: <reason>" (internal/api/phone.go; the
 * kinds an SMS carries, confirmation, phone_change and reauthentication, are GoTrue's OTP types).
 * Call sites send inside the transaction that stored the code, so the failure also rolls the
 * code back.
 */
export function reportingFailures(inner: Messenger, logger: Logger): Messenger {
  return {
    async send(message) {
      try {
        return await inner.send(message);
      } catch (error) {
        if (error instanceof AuthError) throw error;
        const fields = { kind: message.kind, channel: message.channel, userId: message.userId };
        if (message.channel === "sms") {
          const provider = error instanceof SmsProviderError ? error : undefined;
          logger.error({ ...fields, ...provider?.details, err: provider ? provider.message : error }, "SMS delivery failed");
          const otpType = message.kind === "mfa_challenge" ? "mfa" : message.kind;
          throw errors.smsSendFailed(otpType, provider?.reason ?? UNEXPECTED_SMS_FAILURE);
        }
        logger.error({ ...fields, err: error }, "message delivery failed");
        throw errors.messageNotSent(
          message.kind === "phone_change" || message.kind === "mfa_challenge"
            ? `Error sending ${message.kind === "phone_change" ? "phone change" : "MFA code"} email`
            : EMAIL_FAILURE_MESSAGES[message.kind],
        );
      }
    },
  };
}

/** Sends each message through the messenger of its channel. */
export function byChannel(channels: Record<OutgoingMessage["channel"], Messenger>): Messenger {
  return { send: (message) => channels[message.channel].send(message) };
}

/**
 * Outgoing one-time codes (confirmation, email or phone change, reauthentication nonce, invite,
 * password recovery).
 * Email goes out over SMTP when it is configured (src/mail); SMS is a later increment, and
 * without SMTP the default messenger only logs that a message was not delivered (never its code).
 * Tests plug in a messenger that records the messages.
 */
import type { Logger } from "@platform/core";
import { AuthError, errors } from "./errors.js";

export type MessageKind =
  | "confirmation"
  | "email_change_new"
  | "email_change_current"
  | "phone_change"
  | "reauthentication"
  | "invite"
  | "recovery"
  | "magiclink";

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

/** What GoTrue answers when a mail of this kind cannot be sent (internal/api/mail.go). */
const FAILURE_MESSAGES: Record<MessageKind, string> = {
  confirmation: "Error sending confirmation email",
  invite: "Error sending invite email",
  email_change_new: "Error sending email change email",
  email_change_current: "Error sending email change email",
  reauthentication: "Error sending reauthentication email",
  phone_change: "Error sending phone change sms",
  recovery: "Error sending recovery email",
  magiclink: "Error sending magic link email",
};

/**
 * Turns a delivery failure into GoTrue's 500 (no error code of its own: `unexpected_failure`),
 * logging the cause. Call sites send inside the transaction that stored the code, so the
 * failure also rolls the code back.
 */
export function reportingFailures(inner: Messenger, logger: Logger): Messenger {
  return {
    async send(message) {
      try {
        return await inner.send(message);
      } catch (error) {
        if (error instanceof AuthError) throw error;
        logger.error({ err: error, kind: message.kind, channel: message.channel, userId: message.userId }, "message delivery failed");
        throw errors.messageNotSent(FAILURE_MESSAGES[message.kind]);
      }
    },
  };
}

/** Sends each message through the messenger of its channel. */
export function byChannel(channels: Record<OutgoingMessage["channel"], Messenger>): Messenger {
  return { send: (message) => channels[message.channel].send(message) };
}

/**
 * Outgoing one-time codes (confirmation, email or phone change, reauthentication nonce). Sending
 * mail and SMS is a later increment: until then the default messenger only logs that a message
 * was not delivered (never its code). Tests plug in a messenger that records the messages.
 */
import type { Logger } from "@platform/core";

export type MessageKind = "confirmation" | "email_change_new" | "email_change_current" | "phone_change" | "reauthentication" | "invite";

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
  /** Where the link should lead after verification (invites), when the request named a valid one. */
  redirectTo?: string | undefined;
}

export interface Messenger {
  send(message: OutgoingMessage): Promise<void>;
}

export function undeliveredMessenger(logger: Logger): Messenger {
  return {
    async send(message) {
      logger.warn(
        { kind: message.kind, channel: message.channel, userId: message.userId },
        "message delivery is not implemented yet; not sent",
      );
    },
  };
}

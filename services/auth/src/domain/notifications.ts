/**
 * Notification mails (GoTrue's send*Notification in internal/api/mail.go), each behind its
 * MAILER_NOTIFICATIONS_<NAME>_ENABLED switch and only for a user with an email address:
 * - password changed (PUT /user with a new password);
 * - email changed, to the old address (an email change verified);
 * - phone changed (a phone change verified);
 * - identity linked (a phone change that gave the user a phone identity, or a provider identity
 *   linked by hand);
 * - identity unlinked (DELETE /user/identities/{id});
 * - MFA factor enrolled (its first verification) and unenrolled.
 * They are sent once the change is committed; a notification that cannot be sent is logged and
 * does not undo the change, as in GoTrue.
 */
import type { UserRow } from "../db/rows.js";
import type { AuthDeps } from "./context.js";
import type { NotificationKind } from "./messenger.js";

export interface Notice {
  kind: NotificationKind;
  user: UserRow;
  oldEmail?: string | undefined;
  oldPhone?: string | undefined;
  provider?: string | undefined;
  factorType?: string | undefined;
}

const SWITCHES: Record<NotificationKind, string> = {
  password_changed_notification: "PASSWORD_CHANGED",
  email_changed_notification: "EMAIL_CHANGED",
  phone_changed_notification: "PHONE_CHANGED",
  identity_linked_notification: "IDENTITY_LINKED",
  identity_unlinked_notification: "IDENTITY_UNLINKED",
  mfa_factor_enrolled_notification: "MFA_FACTOR_ENROLLED",
  mfa_factor_unenrolled_notification: "MFA_FACTOR_UNENROLLED",
};

export const notificationEnabled = (deps: AuthDeps, kind: NotificationKind): boolean =>
  deps.config.mailer.notifications[SWITCHES[kind]] === true;

/** Sends the notices whose switch is on; failures are logged, never thrown. */
export async function sendNotices(deps: AuthDeps, notices: readonly Notice[]): Promise<void> {
  for (const notice of notices) {
    const { user, kind } = notice;
    const email = user.email ?? "";
    if (!notificationEnabled(deps, kind) || email === "") continue;
    // The email-changed notice goes to the address that was replaced.
    const to = kind === "email_changed_notification" ? (notice.oldEmail ?? "") : email;
    if (to === "") continue;
    try {
      await deps.messenger.send({
        kind,
        channel: "email",
        userId: user.id,
        to,
        otp: "",
        tokenHash: "",
        email,
        oldEmail: notice.oldEmail,
        phone: user.phone ?? "",
        oldPhone: notice.oldPhone,
        provider: notice.provider,
        factorType: notice.factorType,
        data: user.raw_user_meta_data ?? {},
      });
    } catch (error) {
      deps.logger.warn({ err: error, kind, userId: user.id }, "the notification email could not be sent; the change stands");
    }
  }
}

/**
 * Our built-in email bodies, used when MAILER_TEMPLATES_<KIND> is not set or cannot be loaded.
 * They use GoTrue's template variables (internal/mailer/templatemailer in supabase/auth), so a
 * template written for GoTrue works here and the other way round; the wording is our own.
 */

export type MailTemplateKey =
  | "INVITE"
  | "CONFIRMATION"
  | "RECOVERY"
  | "MAGIC_LINK"
  | "EMAIL_CHANGE"
  | "REAUTHENTICATION"
  | "PASSWORD_CHANGED_NOTIFICATION"
  | "EMAIL_CHANGED_NOTIFICATION"
  | "PHONE_CHANGED_NOTIFICATION"
  | "IDENTITY_LINKED_NOTIFICATION"
  | "IDENTITY_UNLINKED_NOTIFICATION"
  | "MFA_FACTOR_ENROLLED_NOTIFICATION"
  | "MFA_FACTOR_UNENROLLED_NOTIFICATION";

const notWithYou = "<p>If you did not make this change, reset your password and contact us at once.</p>";

const layout = (title: string, body: string) => `<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5; color: #222;">
<h2>${title}</h2>
${body}
</body>
</html>
`;

const codeBlock = `<p>Or enter this code: <strong style="font-size: 1.25em; letter-spacing: 0.1em;">{{ .Token }}</strong></p>`;

export const DEFAULT_TEMPLATES: Record<MailTemplateKey, string> = {
  INVITE: layout(
    "You're invited",
    `<p>An account has been created for {{ .Email }} on <a href="{{ .SiteURL }}">{{ .SiteURL }}</a>.</p>
<p>To accept the invitation and choose how you sign in, open this link:</p>
<p><a href="{{ .ConfirmationURL }}">Accept the invitation</a></p>
${codeBlock}`,
  ),
  CONFIRMATION: layout(
    "Confirm your email address",
    `<p>Thanks for signing up with {{ .Email }}. Open this link to confirm the address:</p>
<p><a href="{{ .ConfirmationURL }}">Confirm my email address</a></p>
${codeBlock}
<p>If you did not sign up, you can ignore this message.</p>`,
  ),
  RECOVERY: layout(
    "Reset your password",
    `<p>A new password was requested for {{ .Email }}. Open this link to sign in and choose one:</p>
<p><a href="{{ .ConfirmationURL }}">Reset my password</a></p>
${codeBlock}
<p>If you did not ask for this, you can ignore this message; your password stays as it is.</p>`,
  ),
  MAGIC_LINK: layout(
    "Your sign-in link",
    `<p>Open this link to sign in as {{ .Email }}:</p>
<p><a href="{{ .ConfirmationURL }}">Sign in</a></p>
${codeBlock}
<p>If you did not ask to sign in, you can ignore this message.</p>`,
  ),
  EMAIL_CHANGE: layout(
    "Confirm the change of your email address",
    `<p>A change of the account's email address from {{ .Email }} to {{ .NewEmail }} was requested.</p>
<p><a href="{{ .ConfirmationURL }}">Confirm the change</a></p>
${codeBlock}
<p>If you did not ask for this, do not open the link.</p>`,
  ),
  REAUTHENTICATION: layout(
    "Confirm it's you",
    `<p>Enter this code to confirm the change to your account:</p>
<p><strong style="font-size: 1.25em; letter-spacing: 0.1em;">{{ .Token }}</strong></p>
<p>If you did not ask for a code, someone may know your password.</p>`,
  ),
  PASSWORD_CHANGED_NOTIFICATION: layout(
    "Your password was changed",
    `<p>The password of the account {{ .Email }} was just changed.</p>
${notWithYou}`,
  ),
  EMAIL_CHANGED_NOTIFICATION: layout(
    "Your email address was changed",
    `<p>The account's email address was changed from {{ .OldEmail }} to {{ .Email }}.</p>
${notWithYou}`,
  ),
  PHONE_CHANGED_NOTIFICATION: layout(
    "Your phone number was changed",
    `<p>The phone number of the account {{ .Email }} was changed{{ if .OldPhone }} from {{ .OldPhone }}{{ end }} to {{ .Phone }}.</p>
${notWithYou}`,
  ),
  IDENTITY_LINKED_NOTIFICATION: layout(
    "A sign-in method was added",
    `<p>The account {{ .Email }} can now also sign in with {{ .Provider }}.</p>
${notWithYou}`,
  ),
  IDENTITY_UNLINKED_NOTIFICATION: layout(
    "A sign-in method was removed",
    `<p>The account {{ .Email }} can no longer sign in with {{ .Provider }}.</p>
${notWithYou}`,
  ),
  MFA_FACTOR_ENROLLED_NOTIFICATION: layout(
    "A second factor was added",
    `<p>The account {{ .Email }} now asks for a {{ .FactorType }} code as its second factor.</p>
${notWithYou}`,
  ),
  MFA_FACTOR_UNENROLLED_NOTIFICATION: layout(
    "A second factor was removed",
    `<p>The account {{ .Email }} no longer asks for its {{ .FactorType }} second factor.</p>
${notWithYou}`,
  ),
};

/** GoTrue has a subject for reauthentication but (unlike the others) our spec does not list it. */
export const DEFAULT_REAUTHENTICATION_SUBJECT = "Confirm reauthentication";

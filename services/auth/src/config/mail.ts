/**
 * Mail delivery settings that come on top of config/messaging.ts: GoTrue's reauthentication
 * subject and template (MAILER_SUBJECTS_REAUTHENTICATION, MAILER_TEMPLATES_REAUTHENTICATION),
 * and the check that a configured SMTP server comes with a From address.
 */
import { custom, type Env, readConfig, string } from "@platform/core";
import { DEFAULT_REAUTHENTICATION_SUBJECT } from "../mail/default-templates.js";
import { names, optionalUrl } from "./values.js";

export function readMailDelivery(env: Env, smtp: { host?: string | undefined; adminEmail?: string | undefined }, problems: string[]) {
  if (smtp.host && !smtp.adminEmail) problems.push("AUTH_SMTP_ADMIN_EMAIL is required when AUTH_SMTP_HOST is set (it is the From address)");
  return readConfig(env, {
    reauthenticationSubject: string(names("MAILER_SUBJECTS_REAUTHENTICATION"), DEFAULT_REAUTHENTICATION_SUBJECT),
    reauthenticationTemplate: custom(names("MAILER_TEMPLATES_REAUTHENTICATION"), optionalUrl),
  });
}

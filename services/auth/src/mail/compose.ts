/**
 * Subject and body of each email kind, with GoTrue's template variables (SiteURL, Email,
 * NewEmail, Token, TokenHash, Data, RedirectTo, SendingTo, the notifications' OldEmail, Phone,
 * OldPhone, Provider and FactorType and, for linked mails,
 * ConfirmationURL = API_EXTERNAL_URL + MAILER_URLPATHS_<kind> + ?token=&type=&redirect_to=).
 */
import type { Logger } from "@platform/core";
import type { AuthConfig } from "../config.js";
import type { MessageKind, OutgoingMessage } from "../domain/messenger.js";
import { verificationLink } from "../domain/url-encoding.js";
import type { MailTemplateKey } from "./default-templates.js";
import { escapeHtml, parseTemplate, type Template } from "./go-template.js";
import type { TemplateSource } from "./template-source.js";

export interface MailContent {
  to: string;
  subject: string;
  html: string;
}

interface KindSpec {
  template: MailTemplateKey;
  /** The /verify type the link carries, and the URL path setting it uses; none for code-only mails. */
  link?: { type: string; path: keyof AuthConfig["mailer"]["urlPaths"] };
}

const KINDS: Partial<Record<MessageKind, KindSpec>> = {
  confirmation: { template: "CONFIRMATION", link: { type: "signup", path: "confirmation" } },
  invite: { template: "INVITE", link: { type: "invite", path: "invite" } },
  email_change_new: { template: "EMAIL_CHANGE", link: { type: "email_change", path: "emailChange" } },
  email_change_current: { template: "EMAIL_CHANGE", link: { type: "email_change", path: "emailChange" } },
  reauthentication: { template: "REAUTHENTICATION" },
  recovery: { template: "RECOVERY", link: { type: "recovery", path: "recovery" } },
  magiclink: { template: "MAGIC_LINK", link: { type: "magiclink", path: "recovery" } },
  password_changed_notification: { template: "PASSWORD_CHANGED_NOTIFICATION" },
  email_changed_notification: { template: "EMAIL_CHANGED_NOTIFICATION" },
  phone_changed_notification: { template: "PHONE_CHANGED_NOTIFICATION" },
  identity_linked_notification: { template: "IDENTITY_LINKED_NOTIFICATION" },
  identity_unlinked_notification: { template: "IDENTITY_UNLINKED_NOTIFICATION" },
  mfa_factor_enrolled_notification: { template: "MFA_FACTOR_ENROLLED_NOTIFICATION" },
  mfa_factor_unenrolled_notification: { template: "MFA_FACTOR_UNENROLLED_NOTIFICATION" },
};

export class MailComposer {
  private readonly subjects = new Map<MailTemplateKey, Template>();

  constructor(
    private readonly config: AuthConfig,
    private readonly templates: TemplateSource,
    private readonly logger: Logger,
  ) {}

  /**
   * A subject is a template too, parsed once per kind. One this subset cannot read (a setting's
   * mistake, the same for every mail) is sent as written, and said so once in the log.
   */
  private subject(key: MailTemplateKey): Template {
    const known = this.subjects.get(key);
    if (known) return known;
    const source =
      key === "REAUTHENTICATION" ? this.config.mailDelivery.reauthenticationSubject : (this.config.mailer.subjects[key] ?? key);
    let template: Template;
    try {
      template = parseTemplate(source);
    } catch (error) {
      this.logger.warn({ err: error, template: key }, "the mail subject is not a template this server reads: it is sent as written");
      template = { render: () => source };
    }
    this.subjects.set(key, template);
    return template;
  }

  async compose(message: OutgoingMessage): Promise<MailContent> {
    const spec = KINDS[message.kind];
    if (!spec) throw new Error(`no email is defined for ${message.kind} messages`);
    const { config } = this;
    const redirectTo = message.redirectTo ?? config.siteUrl;
    const variables: Record<string, unknown> = {
      SiteURL: config.siteUrl,
      Email: message.email ?? message.to,
      NewEmail: message.newEmail ?? "",
      Token: message.otp,
      TokenHash: message.tokenHash,
      Data: message.data ?? {},
      RedirectTo: redirectTo,
      SendingTo: message.to,
      OldEmail: message.oldEmail ?? "",
      Phone: message.phone ?? "",
      OldPhone: message.oldPhone ?? "",
      Provider: message.provider ?? "",
      FactorType: message.factorType ?? "",
    };
    if (spec.link) {
      const path = config.mailer.urlPaths[spec.link.path];
      variables.ConfirmationURL = verificationLink(config.api.externalUrl, path, message.tokenHash, spec.link.type, redirectTo);
    }
    const subject = this.subject(spec.template).render(variables);
    const body = await this.templates.get(spec.template);
    return { to: message.to, subject, html: body.render(variables, escapeHtml) };
  }
}

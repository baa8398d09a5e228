/**
 * Subject and body of each email kind, with GoTrue's template variables (SiteURL, Email,
 * NewEmail, Token, TokenHash, Data, RedirectTo, SendingTo and, for linked mails,
 * ConfirmationURL = API_EXTERNAL_URL + MAILER_URLPATHS_<kind> + ?token=&type=&redirect_to=).
 */
import type { AuthConfig } from "../config.js";
import type { MessageKind, OutgoingMessage } from "../domain/messenger.js";
import { verificationLink } from "../domain/url-encoding.js";
import type { MailTemplateKey } from "./default-templates.js";
import { escapeHtml, parseTemplate } from "./go-template.js";
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
};

export class MailComposer {
  constructor(
    private readonly config: AuthConfig,
    private readonly templates: TemplateSource,
  ) {}

  private subject(key: MailTemplateKey): string {
    if (key === "REAUTHENTICATION") return this.config.mailDelivery.reauthenticationSubject;
    return this.config.mailer.subjects[key] ?? key;
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
    };
    if (spec.link) {
      const path = config.mailer.urlPaths[spec.link.path];
      variables.ConfirmationURL = verificationLink(config.api.externalUrl, path, message.tokenHash, spec.link.type, redirectTo);
    }
    const subjectSource = this.subject(spec.template);
    let subject: string;
    try {
      subject = parseTemplate(subjectSource).render(variables);
    } catch {
      subject = subjectSource;
    }
    const body = await this.templates.get(spec.template);
    return { to: message.to, subject, html: body.render(variables, escapeHtml) };
  }
}

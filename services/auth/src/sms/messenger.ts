/**
 * The SMS messenger for the configured provider: renders SMS_TEMPLATE with the code (GoTrue's SMS
 * template knows one variable, `{{ .Code }}`: internal/api/phone.go) and hands the text to the
 * provider, answering the provider's message id. No messenger when no provider is chosen or
 * its credentials are incomplete (domain/sms-readiness.ts refuses those sends with GoTrue's
 * error). Twilio Verify also checks the codes it made (`codes`).
 */
import type { Logger } from "@platform/core";
import type { AuthConfig } from "../config.js";
import { errors } from "../domain/errors.js";
import type { Messenger, SmsCodeChecker } from "../domain/messenger.js";
import { smsProviderIncomplete } from "../domain/sms-readiness.js";
import { parseTemplate, TemplateError } from "../mail/go-template.js";
import type { SmsSender } from "./http.js";
import { messagebirdSender } from "./messagebird.js";
import { textlocalSender } from "./textlocal.js";
import { twilioSender } from "./twilio.js";
import { twilioVerify } from "./twilio-verify.js";
import { vonageSender } from "./vonage.js";

type SmsConfig = AuthConfig["sms"];

export interface SmsProvider {
  sender: SmsSender;
  codes?: SmsCodeChecker | undefined;
}

/** The chosen provider, or undefined when there is none that can send. */
export function smsProvider(sms: SmsConfig): SmsProvider | undefined {
  if (sms.provider === "twilio_verify" && !smsProviderIncomplete(sms)) {
    const c = sms.credentials;
    return twilioVerify({
      baseUrl: sms.baseUrls.twilio_verify,
      accountSid: c.account_sid as string,
      authToken: c.auth_token as string,
      serviceSid: c.message_service_sid as string,
      timeoutMs: sms.timeoutMs,
    });
  }
  const sender = smsSender(sms);
  return sender ? { sender } : undefined;
}

function smsSender(sms: SmsConfig): SmsSender | undefined {
  if (!sms.provider || smsProviderIncomplete(sms)) return undefined;
  const c = sms.credentials;
  const timeoutMs = sms.timeoutMs;
  switch (sms.provider) {
    case "twilio":
      return twilioSender({
        baseUrl: sms.baseUrls.twilio,
        accountSid: c.account_sid as string,
        authToken: c.auth_token as string,
        messageServiceSid: c.message_service_sid as string,
        contentSid: sms.twilioContentSid,
        timeoutMs,
      });
    case "messagebird":
      return messagebirdSender({
        baseUrl: sms.baseUrls.messagebird,
        accessKey: c.access_key as string,
        originator: c.originator as string,
        timeoutMs,
      });
    case "textlocal":
      return textlocalSender({ baseUrl: sms.baseUrls.textlocal, apiKey: c.api_key as string, sender: c.sender as string, timeoutMs });
    case "vonage":
      return vonageSender({
        baseUrl: sms.baseUrls.vonage,
        apiKey: c.api_key as string,
        apiSecret: c.api_secret as string,
        from: c.from as string,
        timeoutMs,
      });
    case "twilio_verify":
      // Built by smsProvider with its code check; no plain sender.
      return undefined;
  }
}

/**
 * What SMS_TEMPLATE sees: `.Code` and nothing else. GoTrue executes the template on a struct with
 * only that field, so any other field is an execution error (500 "error generating sms
 * template"); the proxy makes the template subset, which prints unknown fields as "", fail alike.
 */
function templateData(otp: string): Record<string, unknown> {
  return new Proxy(
    { Code: otp },
    {
      get(target, key) {
        if (key === "Code") return target.Code;
        // JSON.stringify (how `{{ . }}` is printed) asks for toJSON first.
        if (typeof key === "string" && key !== "toJSON") throw new TemplateError(`can't evaluate field ${key}`);
        return undefined;
      },
    },
  );
}

/** A messenger for SMS through `sender`; `via` defaults to a plain SMS. */
export function smsMessenger(sms: SmsConfig, sender: SmsSender, logger: Logger): Messenger {
  // readSms and readMfa have parsed the templates already (a bad one stops start-up), so this does not throw.
  const templates = new Map([[sms.template, parseTemplate(sms.template)]]);
  const templateOf = (source: string) => {
    const known = templates.get(source);
    if (known) return known;
    const template = parseTemplate(source);
    templates.set(source, template);
    return template;
  };
  return {
    async send(message) {
      let text: string;
      try {
        text = templateOf(message.template ?? sms.template).render(templateData(message.otp));
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        logger.error({ err: error, kind: message.kind, userId: message.userId }, "SMS_TEMPLATE cannot be rendered");
        throw errors.smsTemplateFailed();
      }
      const messageId = await sender.send({ to: message.to, text, otp: message.otp, via: message.via ?? "sms" });
      logger.info({ provider: sender.name, kind: message.kind, userId: message.userId, messageId }, "SMS handed to the provider");
      return { messageId };
    },
  };
}

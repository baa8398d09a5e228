/**
 * Twilio Programmable Messaging, as GoTrue calls it (internal/api/sms_provider/twilio.go):
 * POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic auth with the account
 * SID and auth token, form fields To ("+" and the number), From (SMS_TWILIO_MESSAGE_SERVICE_SID),
 * Channel and Body. WhatsApp puts "whatsapp:" before To, and before From when From is a phone
 * number (a messaging service SID stays as it is); with SMS_TWILIO_CONTENT_SID the code goes as
 * the content template's variable "1" instead of a Body. Twilio answers 200 or 201 with the
 * message's `sid` and `status`; an error answer carries `code`, `message` and `more_info`.
 */
import { SmsProviderError } from "../domain/errors.js";
import { field, postForm, redact, type Sms, type SmsSender, unreadableAnswer } from "./http.js";

export interface TwilioSettings {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  messageServiceSid: string;
  contentSid?: string | undefined;
  timeoutMs: number;
}

const E164_DIGITS = /^[1-9][0-9]{1,14}$/;

/** GoTrue's test for a sender that is a phone number: "+" and spaces dropped, E.164 digits left. */
const isPhoneNumber = (sender: string) => E164_DIGITS.test(sender.replace(/^\+/, "").replaceAll(" ", ""));

export function twilioSender(settings: TwilioSettings): SmsSender {
  const url = `${settings.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString("base64")}`;
  return {
    name: "twilio",
    async send(sms: Sms) {
      const form = formFor(sms, settings);
      const secrets = [settings.authToken, sms.otp];
      const answer = await postForm({ url, headers: { Authorization: authorization }, form, timeoutMs: settings.timeoutMs, secrets });
      const { status, body } = answer;
      if (status !== 200 && status !== 201) {
        if (body === undefined) throw unreadableAnswer("twilio", answer);
        // GoTrue answers Twilio's own words: "<message> More information: <more_info>".
        throw new SmsProviderError(redact(`${field(body, "message")} More information: ${field(body, "more_info")}`, secrets), {
          status,
          providerCode: field(body, "code"),
        });
      }
      if (body === undefined) throw unreadableAnswer("twilio", answer);
      const sid = field(body, "sid");
      const state = field(body, "status");
      if (state === "failed" || state === "undelivered") {
        const reason = `twilio error: ${field(body, "error_message")} ${field(body, "error_code")} for message ${sid}`;
        throw new SmsProviderError(redact(reason, secrets), { status, messageId: sid, providerCode: field(body, "error_code") });
      }
      return sid || undefined;
    },
  };
}

function formFor(sms: Sms, settings: TwilioSettings): Record<string, string> {
  const to = `+${sms.to}`;
  const from = settings.messageServiceSid;
  if (sms.via === "sms") return { To: to, Channel: "sms", From: from, Body: sms.text };
  const form: Record<string, string> = {
    To: `whatsapp:${to}`,
    Channel: "whatsapp",
    From: isPhoneNumber(from) ? `whatsapp:${from}` : from,
  };
  if (settings.contentSid) {
    form.ContentSid = settings.contentSid;
    form.ContentVariables = JSON.stringify({ 1: sms.otp });
  } else {
    form.Body = sms.text;
  }
  return form;
}

/**
 * Vonage (formerly Nexmo) SMS API, as GoTrue calls it (internal/api/sms_provider/vonage.go):
 * POST {base}/sms/json with form fields from, to (the number without "+"), text, api_key and
 * api_secret (credentials travel in the form), plus type=unicode when the text is not plain
 * ASCII. SMS only. Vonage answers 200 either way with `messages[]`: status "0" is success and
 * carries the `message-id`; any other status comes with an `error-text`.
 */
import { SmsProviderError } from "../domain/errors.js";
import { field, first, postForm, redact, type Sms, type SmsSender, unreadableAnswer, unsupportedChannel } from "./http.js";

export interface VonageSettings {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  from: string;
  timeoutMs: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is exactly the range being tested.
const ASCII = /^[\x00-\x7f]*$/;

export function vonageSender(settings: VonageSettings): SmsSender {
  const url = `${settings.baseUrl}/sms/json`;
  return {
    name: "vonage",
    async send(sms: Sms) {
      if (sms.via !== "sms") throw unsupportedChannel(sms.via, "Vonage");
      const secrets = [settings.apiKey, settings.apiSecret, sms.otp];
      const form: Record<string, string> = {
        from: settings.from,
        to: sms.to,
        text: sms.text,
        api_key: settings.apiKey,
        api_secret: settings.apiSecret,
      };
      if (!ASCII.test(sms.text)) form.type = "unicode";
      const answer = await postForm({ url, form, timeoutMs: settings.timeoutMs, secrets });
      const { status, body } = answer;
      if (body === undefined) throw unreadableAnswer("vonage", answer);
      const message = first(body, "messages");
      if (message === undefined) throw new SmsProviderError("vonage error: Internal Error", { status });
      const messageId = field(message, "message-id");
      const state = field(message, "status");
      if (state !== "0") {
        const reason = `vonage error: ${field(message, "error-text")} (status: ${state}) for message ${messageId}`;
        throw new SmsProviderError(redact(reason, secrets), { status, providerCode: state, messageId });
      }
      return messageId || undefined;
    },
  };
}

/**
 * Textlocal, as GoTrue calls it (internal/api/sms_provider/textlocal.go): POST {base}/send with
 * form fields sender, apikey (the key travels in the form, not a header), message and numbers
 * (the number without "+"). SMS only. Textlocal answers 200 either way: `status` is "success", or
 * not, with `errors[]` of `code` and `message`. Code 80 is Textlocal's "message does not match an
 * approved template"; GoTrue quotes the message text then, which would hand the code to whoever
 * asked for it, so here it goes neither into the answer nor the log.
 */
import { SmsProviderError } from "../domain/errors.js";
import { field, first, postForm, redact, type Sms, type SmsSender, unreadableAnswer, unsupportedChannel } from "./http.js";

export interface TextlocalSettings {
  baseUrl: string;
  apiKey: string;
  sender: string;
  timeoutMs: number;
}

const TEMPLATE_ERROR = "80";

export function textlocalSender(settings: TextlocalSettings): SmsSender {
  const url = `${settings.baseUrl}/send`;
  return {
    name: "textlocal",
    async send(sms: Sms) {
      if (sms.via !== "sms") throw unsupportedChannel(sms.via, "TextLocal");
      const secrets = [settings.apiKey, sms.otp];
      const answer = await postForm({
        url,
        form: { sender: settings.sender, apikey: settings.apiKey, message: sms.text, numbers: sms.to },
        timeoutMs: settings.timeoutMs,
        secrets,
      });
      const { status, body } = answer;
      if (body === undefined) throw unreadableAnswer("textlocal", answer);
      const messageId = field(first(body, "messages"), "id");
      if (field(body, "status") !== "success") {
        const error = first(body, "errors");
        const code = field(error, "code");
        const words = `textlocal error: ${field(error, "message")} (code: ${code})`;
        const reason =
          code === TEMPLATE_ERROR ? `${words} the message does not match an approved template` : `${words} message ${messageId}`;
        throw new SmsProviderError(redact(reason, secrets), { status, providerCode: code, messageId });
      }
      return messageId || undefined;
    },
  };
}

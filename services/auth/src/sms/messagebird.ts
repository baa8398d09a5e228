/**
 * MessageBird, as GoTrue calls it (internal/api/sms_provider/messagebird.go): POST {base}/messages
 * with "Authorization: AccessKey <key>" and form fields originator, body, recipients (the number
 * without "+"), type=sms and datacoding=unicode. SMS only. An error answer (400, 401, 403, 422)
 * carries `errors[]` with a `description`; a success names the message `id` and how many
 * recipients it went to, and none is a failure too.
 */
import { SmsProviderError } from "../domain/errors.js";
import { field, first, postForm, redact, type Sms, type SmsSender, unreadableAnswer, unsupportedChannel } from "./http.js";

export interface MessagebirdSettings {
  baseUrl: string;
  accessKey: string;
  originator: string;
  timeoutMs: number;
}

export function messagebirdSender(settings: MessagebirdSettings): SmsSender {
  const url = `${settings.baseUrl}/messages`;
  return {
    name: "messagebird",
    async send(sms: Sms) {
      if (sms.via !== "sms") throw unsupportedChannel(sms.via, "Messagebird");
      const secrets = [settings.accessKey, sms.otp];
      const answer = await postForm({
        url,
        headers: { Authorization: `AccessKey ${settings.accessKey}` },
        form: { originator: settings.originator, body: sms.text, recipients: sms.to, type: "sms", datacoding: "unicode" },
        timeoutMs: settings.timeoutMs,
        secrets,
      });
      const { status, body } = answer;
      const error = first(body, "errors");
      if (status < 200 || status >= 300 || error !== undefined) {
        if (error === undefined) throw unreadableAnswer("messagebird", answer);
        // GoTrue answers the first error's description.
        throw new SmsProviderError(redact(field(error, "description"), secrets), { status, providerCode: field(error, "code") });
      }
      if (body === undefined) throw unreadableAnswer("messagebird", answer);
      const recipients = (body as { recipients?: unknown }).recipients;
      if (Number(field(recipients, "totalSentCount")) === 0) {
        throw new SmsProviderError("messagebird error: total sent count is 0", { status, messageId: field(body, "id") });
      }
      return field(body, "id") || undefined;
    },
  };
}

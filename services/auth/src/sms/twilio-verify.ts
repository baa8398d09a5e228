/**
 * Twilio Verify, as GoTrue calls it (internal/api/sms_provider/twilio_verify.go). Twilio makes and
 * sends the code itself, so the rendered SMS_TEMPLATE and the service's own code are not used:
 * POST {base}/v2/Services/{SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID}/Verifications with HTTP Basic
 * auth (account SID, auth token) and form fields To ("+" and the number, no whatsapp: prefix)
 * and Channel; the answer's `sid` is the message id. The code the user types is then checked by
 * POST .../VerificationCheck with To and Code: approved only when `status` is "approved" and
 * `valid` is true. Error answers are Twilio's (`code`, `message`, `more_info`).
 */
import { SmsProviderError } from "../domain/errors.js";
import type { SmsCodeChecker } from "../domain/messenger.js";
import { field, type ProviderAnswer, postForm, redact, type Sms, type SmsSender, unreadableAnswer } from "./http.js";

export interface TwilioVerifySettings {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** The Verify service SID (VA...). */
  serviceSid: string;
  timeoutMs: number;
}

export function twilioVerify(settings: TwilioVerifySettings): { sender: SmsSender; codes: SmsCodeChecker } {
  const service = `${settings.baseUrl}/v2/Services/${encodeURIComponent(settings.serviceSid)}`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString("base64")}`;
  const post = (path: string, form: Record<string, string>, secrets: string[]) =>
    postForm({ url: `${service}/${path}`, headers: { Authorization: authorization }, form, timeoutMs: settings.timeoutMs, secrets });

  /** A non-success answer as GoTrue words it: "<message> More information: <more_info>". */
  const refused = (answer: ProviderAnswer, secrets: string[]) => {
    if (answer.body === undefined) return unreadableAnswer("twilio", answer);
    const reason = `${field(answer.body, "message")} More information: ${field(answer.body, "more_info")}`;
    return new SmsProviderError(redact(reason, secrets), { status: answer.status, providerCode: field(answer.body, "code") });
  };
  const succeeded = (answer: ProviderAnswer) => (answer.status === 200 || answer.status === 201) && answer.body !== undefined;

  return {
    sender: {
      name: "twilio_verify",
      async send(sms: Sms) {
        const secrets = [settings.authToken];
        const answer = await post("Verifications", { To: `+${sms.to}`, Channel: sms.via }, secrets);
        if (!succeeded(answer)) throw refused(answer, secrets);
        return field(answer.body, "sid") || undefined;
      },
    },
    codes: {
      async check(phone: string, code: string) {
        const secrets = [settings.authToken, code];
        const answer = await post("VerificationCheck", { To: `+${phone}`, Code: code }, secrets);
        if (!succeeded(answer)) throw refused(answer, secrets);
        const valid = (answer.body as { valid?: unknown }).valid === true;
        if (field(answer.body, "status") !== "approved" || !valid) {
          const reason = `twilio verification error: ${field(answer.body, "error_message")} ${field(answer.body, "status")}`;
          throw new SmsProviderError(redact(reason, secrets), { status: answer.status });
        }
      },
    },
  };
}

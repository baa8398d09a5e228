/**
 * Captcha verification, as GoTrue does it (supabase/auth internal/security/captcha.go): the token
 * is POSTed as a form (`secret`, `response`, `remoteip`) to the provider's verify endpoint
 * (hCaptcha's or Cloudflare Turnstile's, or SECURITY_CAPTCHA_VERIFY_URL), and its JSON answer's
 * `success` and `error-codes` decide. The call is bounded by SECURITY_CAPTCHA_TIMEOUT (headers
 * and body alike) and the answer's size; a call that fails, times out or answers something that
 * is not the JSON object GoTrue decodes is GoTrue's 500 "captcha verification process failed".
 */
import type { AuthConfig } from "../config.js";
import { errors } from "./errors.js";
import { boundedText } from "./external/oauth-client.js";

export type CaptchaSettings = Pick<AuthConfig["captcha"], "secret" | "timeoutMs" | "verifyUrl">;

export interface CaptchaAnswer {
  success: boolean;
  errorCodes: string[];
}

class UnreadableAnswer extends Error {}

/**
 * The provider's answer as Go's encoding/json reads it into GoTrue's VerificationResponse: `null`
 * is an empty answer, absent fields are false or empty, a field of the wrong type is an error.
 */
export function parseCaptchaAnswer(text: string): CaptchaAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UnreadableAnswer(`the captcha provider's answer is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
  }
  if (parsed === null) return { success: false, errorCodes: [] };
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new UnreadableAnswer("the captcha provider's answer is not a JSON object");
  const { success, "error-codes": codes } = parsed as Record<string, unknown>;
  if (success !== undefined && success !== null && typeof success !== "boolean") {
    throw new UnreadableAnswer("the captcha provider's `success` is not a boolean");
  }
  const errorCodes = codes === undefined || codes === null ? [] : codes;
  if (!Array.isArray(errorCodes) || errorCodes.some((code) => code !== null && typeof code !== "string")) {
    throw new UnreadableAnswer("the captcha provider's `error-codes` is not a list of strings");
  }
  return { success: success === true, errorCodes: errorCodes.map((code) => code ?? "") };
}

/** Asks the provider about `token`; resolves when it accepts, throws the AuthError GoTrue answers otherwise. */
export async function verifyCaptcha(settings: CaptchaSettings, token: string, clientIp: string | undefined): Promise<void> {
  const form = new URLSearchParams({ secret: settings.secret?.trim() ?? "", response: token });
  if (clientIp !== undefined) form.set("remoteip", clientIp);
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let answer: CaptchaAnswer;
  try {
    const response = await fetch(settings.verifyUrl, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      signal,
    });
    // Read under the same signal: a provider that sends headers and then stalls fails in time too.
    answer = parseCaptchaAnswer(await boundedText(response));
  } catch (error) {
    const host = new URL(settings.verifyUrl).host;
    const cause = signal.aborted
      ? new Error(`no answer from ${host} within ${settings.timeoutMs}ms`)
      : new Error(`captcha verification at ${host} failed`, { cause: error });
    throw errors.captchaVerificationFailed(cause);
  }
  if (!answer.success) throw errors.captchaRefused(answer.errorCodes);
}

/**
 * The one HTTP call every SMS provider makes: a POST of form fields, bounded by a timeout (GoTrue
 * gives its provider clients GOTRUE_INTERNAL_HTTP_TIMEOUT, 10s by default:
 * internal/api/sms_provider/sms_provider.go). A send runs inside the request's database
 * transaction, so a provider that does not answer must fail the request in seconds, not hold the
 * transaction open. Failures become SmsProviderError, whose reason is answered to the client:
 * `redact` takes the credentials and the code out of anything a provider says.
 */
import { SmsProviderError } from "../domain/errors.js";

/** One SMS to hand to a provider. */
export interface Sms {
  /** E.164 digits without "+". */
  to: string;
  /** SMS_TEMPLATE rendered with the code. */
  text: string;
  /** The code itself (Twilio's WhatsApp content templates take it as a variable). */
  otp: string;
  via: "sms" | "whatsapp";
}

/** A provider: sends one SMS and answers the provider's message id. */
export interface SmsSender {
  readonly name: string;
  send(sms: Sms): Promise<string | undefined>;
}

export interface ProviderAnswer {
  status: number;
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: unknown;
}

export interface ProviderRequest {
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded, as every provider GoTrue supports takes it. */
  form: Record<string, string>;
  timeoutMs: number;
  /** Values that must never appear in an answered reason: credentials and the code. */
  secrets: string[];
}

/** Longest provider text passed on in an answer; the log has the status and codes. */
const MAX_REASON = 300;

/** Takes `secrets` out of `text` and bounds its length, so a provider's words can be answered. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out.length > MAX_REASON ? `${out.slice(0, MAX_REASON)}...` : out;
}

export async function postForm(request: ProviderRequest): Promise<ProviderAnswer> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...request.headers },
      body: new URLSearchParams(request.form).toString(),
      signal,
    });
    // The body is read under the same signal: a provider that sends headers and then stalls
    // fails within the timeout too.
    text = await response.text();
  } catch (error) {
    const host = new URL(request.url).host;
    if (signal.aborted) {
      throw new SmsProviderError(`no answer from ${host} within ${request.timeoutMs}ms`, { host, timeoutMs: request.timeoutMs });
    }
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new SmsProviderError(redact(`request to ${host} failed: ${cause}`, request.secrets), { host });
  }
  return { status: response.status, body: parseJson(text) };
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** A field of a JSON object answer, as a string ("" when absent); numbers are printed. */
export function field(body: unknown, name: string): string {
  if (body === null || typeof body !== "object") return "";
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

/** The first element of an array field of a JSON object answer. */
export function first(body: unknown, name: string): unknown {
  if (body === null || typeof body !== "object") return undefined;
  const value = (body as Record<string, unknown>)[name];
  return Array.isArray(value) ? value[0] : undefined;
}

/** A provider that cannot carry the requested channel: GoTrue's words (internal/api/sms_provider/*.go). */
export function unsupportedChannel(via: string, provider: string): SmsProviderError {
  return new SmsProviderError(`channel type "${via}" is not supported for ${provider}`, { via });
}

/** A provider answer that is not the JSON its API documents. */
export function unreadableAnswer(provider: string, answer: ProviderAnswer): SmsProviderError {
  return new SmsProviderError(`${provider} error: unexpected answer (HTTP ${answer.status})`, { status: answer.status });
}

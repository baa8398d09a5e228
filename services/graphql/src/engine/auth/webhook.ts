/**
 * Webhook mode (https://hasura.io/docs/latest/auth/authentication/webhook): GET forwards the
 * client's headers, POST sends `{headers, request}`; a 200 with a JSON object of `X-Hasura-*`
 * values authenticates, 401 denies, anything else is an error. `Cache-Control` / `Expires` in the
 * body bound the session.
 */

import { webhookInvalidResponse, webhookRequestFailed, webhookUnauthorized } from "../errors/index.js";
import { NOT_FORWARDED as CLIENT_HEADERS_IGNORED } from "../request/client-headers.js";
import { type RequestHeaders, sessionValueText } from "./session-vars.js";

export interface WebhookConfig {
  url: string;
  mode: "GET" | "POST";
  /** Request timeout in ms. */
  timeoutMs: number;
}

export interface WebhookAnswer {
  /** `x-hasura-*` entries of the answer, names lower-cased. */
  variables: Record<string, string>;
  expiresAt: Date | null;
}

// Hasura's commonClientHeadersIgnored, plus what fetch refuses to send (hop-by-hop headers).
const NOT_FORWARDED = new Set([
  ...CLIENT_HEADERS_IGNORED,
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
  "proxy-authorization",
  "http2-settings",
]);

function present(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

function forwardedHeaders(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(present(headers))) if (!NOT_FORWARDED.has(name.toLowerCase())) out[name] = value;
  return out;
}

function expiryOf(body: Record<string, unknown>, now: number): Date | null {
  const field = (name: string): unknown => Object.entries(body).find(([k]) => k.toLowerCase() === name)?.[1];
  const cacheControl = field("cache-control");
  if (typeof cacheControl === "string") {
    const age = /(?:^|,)\s*(?:s-)?max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
    if (age) return new Date(now + Number(age[1]) * 1000);
  }
  const expires = field("expires");
  if (typeof expires === "string" && !Number.isNaN(Date.parse(expires))) return new Date(Date.parse(expires));
  return null;
}

/** Asks the auth hook about a request. `body` is the GraphQL request, sent in POST mode. */
export async function callAuthWebhook(config: WebhookConfig, headers: RequestHeaders, body?: unknown): Promise<WebhookAnswer> {
  const init: RequestInit =
    config.mode === "GET"
      ? { method: "GET", headers: forwardedHeaders(headers) }
      : {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ headers: present(headers), request: body ?? null }),
        };
  let response: Response;
  try {
    response = await fetch(config.url, { ...init, redirect: "manual", signal: AbortSignal.timeout(config.timeoutMs) });
  } catch (error) {
    throw webhookRequestFailed(error);
  }
  const text = await response.text().catch(() => "");
  if (response.status === 401) throw webhookUnauthorized();
  if (response.status !== 200) throw webhookInvalidResponse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw webhookInvalidResponse((error as Error).message, error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw webhookInvalidResponse("Error in $: expected an object of session variables");
  }
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const key = name.toLowerCase();
    if (key.startsWith("x-hasura-") && value !== null) variables[key] = sessionValueText(value);
  }
  return { variables, expiresAt: expiryOf(parsed as Record<string, unknown>, Date.now()) };
}

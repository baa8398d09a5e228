/**
 * One POST of an event's payload to its webhook, as Hasura makes it for event triggers and
 * scheduled triggers alike (https://hasura.io/docs/latest/event-triggers/payload/,
 * https://hasura.io/docs/latest/scheduled-triggers/create-cron-trigger/): the configured headers
 * (`value` or `value_from_env`), the URL given (with `{{VAR}}` templates) or read from an
 * environment variable, a time limit, and what the invocation log keeps of the exchange (the
 * answer's body up to 64 KiB). Any 2xx answer is a delivery. After a failure the event is tried
 * again after the retry interval, or after the answer's `Retry-After` seconds, until its retries
 * are spent; as in Hasura, a `Retry-After` answer is honoured even then
 * (retryOrSetError in server/src-lib/Hasura/Eventing/EventTrigger.hs).
 *
 * A trigger's request transform (transforms/apply.ts) reshapes the request before it is sent: a
 * transform that fails sends nothing and the event is an error at once; a response transform
 * reshapes a delivered answer's body as it is logged, and its failure is a failed attempt
 * (Hasura's processEventQueue and invokeRequest in server/src-lib/Hasura/Eventing/).
 */
import { PostFailure, type PostResult, postJson, postRequest, sendRequest } from "../executors/http-post.js";
import { jsonText } from "../json/number.js";
import { resolveTemplate } from "../remote/env-template.js";
import {
  type HttpRequest,
  jsonOrNull,
  requestContext,
  TransformFailure,
  transformRequest,
  transformResponse,
} from "../transforms/apply.js";
import type { Transforms } from "../transforms/config.js";

const MAX_LOGGED_BODY = 64 * 1024;
/** The status Hasura records for an attempt that got no HTTP answer. */
const CLIENT_ERROR_STATUS = 1000;

export type Env = Record<string, string | undefined>;

export interface HeaderConf {
  name: string;
  value?: string;
  valueFromEnv?: string;
}

export interface WebhookTarget {
  /** `webhook` (may hold `{{VAR}}` templates) or the variable named by `webhook_from_env`. */
  webhook: { url: string } | { fromEnv: string };
  headers: HeaderConf[];
  timeoutSec: number;
  /** The trigger's request and response transforms (REST connectors). */
  transforms?: Transforms | undefined;
}

/** What an invocation log row keeps. */
export interface Invocation {
  status: number | null;
  request: unknown;
  response: unknown;
}

export type Outcome = { kind: "delivered" } | { kind: "retry"; afterMs: number } | { kind: "error" };

export interface Posted {
  invocation: Invocation;
  ok: boolean;
  /** The answer's `Retry-After`, in seconds, when it gave one. */
  retryAfter?: number;
  /** Why the attempt failed, for the log. */
  failure?: string;
}

class ConfigurationError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Headers as metadata spells them (`[{name, value | value_from_env}]`). */
export function parseHeaders(value: unknown): HeaderConf[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((h) => ({
    name: String(h.name ?? ""),
    ...(typeof h.value === "string" ? { value: h.value } : {}),
    ...(typeof h.value_from_env === "string" ? { valueFromEnv: h.value_from_env } : {}),
  }));
}

function webhookUrl(target: WebhookTarget, env: Env): string {
  const missing = (name: string) => new ConfigurationError(`environment variable "${name}" is not set`);
  if ("fromEnv" in target.webhook) {
    const value = env[target.webhook.fromEnv];
    if (value === undefined) throw missing(target.webhook.fromEnv);
    return value;
  }
  return resolveTemplate(target.webhook.url, env, missing);
}

function resolveHeaders(target: WebhookTarget, env: Env): Array<{ name: string; value: string }> {
  return target.headers.map((h) => {
    if (h.valueFromEnv !== undefined) {
      const value = env[h.valueFromEnv];
      if (value === undefined) throw new ConfigurationError(`environment variable "${h.valueFromEnv}" is not set`);
      return { name: h.name, value };
    }
    return { name: h.name, value: h.value ?? "" };
  });
}

/** Seconds of a `Retry-After` answer header holding a number of seconds (Hasura reads no dates). */
function retryAfterSeconds(answerHeaders: Array<[string, string]>): number | undefined {
  const value = answerHeaders.find(([name]) => name.toLowerCase() === "retry-after")?.[1];
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** What follows a failed attempt, `tries` being the attempts made before it. */
export function afterFailure(tries: number, numRetries: number, intervalSec: number, retryAfter?: number): Outcome {
  if (tries >= numRetries && retryAfter === undefined) return { kind: "error" };
  return { kind: "retry", afterMs: Math.max(0, retryAfter ?? intervalSec) * 1000 };
}

/** A request transform that failed: the event is not sent, and not tried again (Hasura's processEventQueue). */
export interface Refused {
  refused: unknown[];
}

const clientError = (status: number, request: unknown, message: string): Invocation => ({
  status,
  request,
  response: { type: "client_error", data: { message }, version: "2" },
});

/**
 * POSTs `payload`, or the request its transform makes of it. `session` is what the transform
 * sees as `$session_variables` (an event's, or null). The log keeps the body sent (as JSON, or
 * null when it is not JSON) and the configured headers, as Hasura's does.
 */
export async function postWebhook(
  target: WebhookTarget,
  payload: unknown,
  env: Env,
  signal?: AbortSignal,
  session: Record<string, string> | null = null,
): Promise<Posted | Refused> {
  let sent: Array<{ name: string; value: string }> = [];
  let logged = payload;
  const request = () => ({ payload: logged, headers: sent, version: "2" });
  try {
    const url = webhookUrl(target, env);
    sent = resolveHeaders(target, env);
    const outgoing: Record<string, string> = { "Content-Type": "application/json" };
    for (const h of sent) outgoing[h.name] = h.value;
    const body = JSON.stringify(payload);
    const options = { timeoutMs: target.timeoutSec * 1000, signal, maxResponseBytes: MAX_LOGGED_BODY };
    const transforms = target.transforms;
    let answer: PostResult;
    if (transforms?.request) {
      const original = postRequest(url, outgoing, body);
      let transformed: HttpRequest;
      try {
        transformed = transformRequest(transforms.request, original, requestContext(original, payload as never, session));
      } catch (error) {
        if (error instanceof TransformFailure) return { refused: error.errors };
        throw error;
      }
      logged = jsonOrNull(transformed.body);
      answer = await sendRequest(transformed, options);
    } else answer = await postJson(url, outgoing, body, options);
    const ok = answer.status >= 200 && answer.status < 300;
    let answerBody = answer.text;
    // A response transform applies to a delivered event's answer, as it is logged (Hasura's invokeRequest).
    if (ok && transforms?.response) {
      const context = transforms.request ? requestContext({ method: "POST", url, headers: [], body }, payload as never, session) : null;
      try {
        answerBody = jsonText(transformResponse(transforms.response, answer, session, context));
      } catch (error) {
        if (!(error instanceof TransformFailure)) throw error;
        const message = JSON.stringify(error.errors);
        return { invocation: clientError(500, request(), message), ok: false, failure: `response transform failed: ${message}` };
      }
    }
    const response = {
      type: "webhook_response",
      data: {
        size: Buffer.byteLength(answerBody),
        body: answerBody,
        headers: answer.headers.map(([name, value]) => ({ name, value })),
        status: answer.status,
      },
      version: "2",
    };
    const invocation = { status: answer.status, request: request(), response };
    if (ok) return { invocation, ok };
    return { invocation, ok, retryAfter: retryAfterSeconds(answer.headers), failure: `status ${answer.status}` };
  } catch (error) {
    if (signal?.aborted) throw error;
    if (!(error instanceof PostFailure) && !(error instanceof ConfigurationError)) throw error;
    const message = error instanceof PostFailure && error.timedOut ? "Response timeout" : error.message;
    return { invocation: clientError(CLIENT_ERROR_STATUS, request(), message), ok: false, failure: message };
  }
}

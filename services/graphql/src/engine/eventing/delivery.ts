/**
 * One attempt to deliver an event to its trigger's webhook, as Hasura makes it
 * (https://hasura.io/docs/latest/event-triggers/payload/ and .../event-triggers/retry-conf/):
 * a POST of the event payload with the trigger's headers, within `timeout_sec`; any 2xx answer
 * is a delivery; otherwise the event is tried again after `interval_sec`, or after the answer's
 * `Retry-After` seconds, until `num_retries` retries are spent. The attempt's request and answer
 * are kept for the invocation log (the answer's body up to 64 KiB).
 */
import { PostFailure, postJson } from "../executors/http-post.js";
import { resolveTemplate } from "../remote/env-template.js";
import type { Invocation, Outcome, QueuedEvent } from "./queue.js";
import type { EventTrigger } from "./triggers.js";

const MAX_LOGGED_BODY = 64 * 1024;
/** The status Hasura records for an attempt that got no HTTP answer. */
const CLIENT_ERROR_STATUS = 1000;

type Env = Record<string, string | undefined>;

/** The body a webhook receives (Hasura's EventPayload). */
export function eventPayload(event: QueuedEvent, trigger: EventTrigger) {
  const { op, data, session_variables, trace_context } = event.payload;
  return {
    id: event.id,
    created_at: event.created_at,
    trigger: { name: event.trigger_name },
    table: { schema: event.schema_name, name: event.table_name },
    event: {
      op,
      data,
      session_variables: session_variables ?? null,
      ...(trace_context ? { trace_context } : {}),
    },
    delivery_info: { max_retries: trigger.retry.numRetries, current_retry: event.tries },
  };
}

class ConfigurationError extends Error {}

function webhookUrl(trigger: EventTrigger, env: Env): string {
  const missing = (name: string) => new ConfigurationError(`environment variable "${name}" is not set`);
  if ("fromEnv" in trigger.webhook) {
    const value = env[trigger.webhook.fromEnv];
    if (value === undefined) throw missing(trigger.webhook.fromEnv);
    return value;
  }
  return resolveTemplate(trigger.webhook.url, env, missing);
}

function headers(trigger: EventTrigger, env: Env): Array<{ name: string; value: string }> {
  return trigger.headers.map((h) => {
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

export interface Attempt {
  invocation: Invocation;
  outcome: Outcome;
  /** Why the attempt failed, for the log. */
  failure?: string;
}

function afterFailure(event: QueuedEvent, trigger: EventTrigger, retryAfter?: number): Outcome {
  if (event.tries >= trigger.retry.numRetries) return { kind: "error" };
  const seconds = retryAfter ?? trigger.retry.intervalSec;
  return { kind: "retry", afterMs: Math.max(0, seconds) * 1000 };
}

export async function deliver(event: QueuedEvent, trigger: EventTrigger, env: Env, signal?: AbortSignal): Promise<Attempt> {
  const payload = eventPayload(event, trigger);
  let sent: Array<{ name: string; value: string }> = [];
  const request = () => ({ payload, headers: sent, version: "2" });
  try {
    const url = webhookUrl(trigger, env);
    sent = headers(trigger, env);
    const outgoing: Record<string, string> = { "Content-Type": "application/json" };
    for (const h of sent) outgoing[h.name] = h.value;
    const answer = await postJson(url, outgoing, JSON.stringify(payload), {
      timeoutMs: trigger.retry.timeoutSec * 1000,
      signal,
      maxResponseBytes: MAX_LOGGED_BODY,
    });
    const ok = answer.status >= 200 && answer.status < 300;
    const response = {
      type: "webhook_response",
      data: {
        size: Buffer.byteLength(answer.text),
        body: answer.text,
        headers: answer.headers.map(([name, value]) => ({ name, value })),
        status: answer.status,
      },
      version: "2",
    };
    const invocation = { status: answer.status, request: request(), response };
    if (ok) return { invocation, outcome: { kind: "delivered" } };
    return { invocation, outcome: afterFailure(event, trigger, retryAfterSeconds(answer.headers)), failure: `status ${answer.status}` };
  } catch (error) {
    if (signal?.aborted) throw error;
    if (!(error instanceof PostFailure) && !(error instanceof ConfigurationError)) throw error;
    const message = error instanceof PostFailure && error.timedOut ? "Response timeout" : error.message;
    const invocation = {
      status: CLIENT_ERROR_STATUS,
      request: request(),
      response: { type: "client_error", data: { message }, version: "2" },
    };
    return { invocation, outcome: afterFailure(event, trigger), failure: message };
  }
}

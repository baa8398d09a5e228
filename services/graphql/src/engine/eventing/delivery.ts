/**
 * One attempt to deliver a captured event to its trigger's webhook, with Hasura's payload
 * (https://hasura.io/docs/latest/event-triggers/payload/) and retry settings
 * (https://hasura.io/docs/latest/event-triggers/retry-conf/): `num_retries`, `interval_sec`,
 * `timeout_sec`. The exchange itself is webhook.ts's.
 */
import type { QueuedEvent } from "./queue.js";
import type { EventTrigger } from "./triggers.js";
import { afterFailure, type Env, type Invocation, type Outcome, postWebhook } from "./webhook.js";

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

export interface Attempt {
  /** Absent when the request transform failed: nothing was sent, and nothing is logged. */
  invocation?: Invocation;
  outcome: Outcome;
  /** Why the attempt failed, for the log. */
  failure?: string;
}

export async function deliver(event: QueuedEvent, trigger: EventTrigger, env: Env, signal?: AbortSignal): Promise<Attempt> {
  const target = {
    webhook: trigger.webhook,
    headers: trigger.headers,
    timeoutSec: trigger.retry.timeoutSec,
    transforms: trigger.transforms,
  };
  const session = (event.payload.session_variables ?? null) as Record<string, string> | null;
  const posted = await postWebhook(target, eventPayload(event, trigger), env, signal, session);
  // A request transform that fails marks the event as an error at once, as Hasura does.
  if ("refused" in posted) return { outcome: { kind: "error" }, failure: `request transform failed: ${JSON.stringify(posted.refused)}` };
  if (posted.ok) return { invocation: posted.invocation, outcome: { kind: "delivered" } };
  const { numRetries, intervalSec } = trigger.retry;
  return {
    invocation: posted.invocation,
    outcome: afterFailure(event.tries, numRetries, intervalSec, posted.retryAfter),
    failure: posted.failure,
  };
}

/** Event-trigger deliveries as the engine POSTs them (https://hasura.io/docs/2.0/event-triggers/payload/). */
import { randomUUID } from "node:crypto";
import { CRON_SECRET } from "./platform.js";

export type Row = Record<string, unknown>;

export interface Delivery {
  trigger: string;
  table: string;
  op: "INSERT" | "UPDATE" | "DELETE" | "MANUAL";
  old?: Row | null;
  new?: Row | null;
  /** Default: the admin's session. */
  session?: Record<string, string> | null;
}

export function eventPayload(delivery: Delivery) {
  return {
    event: {
      session_variables: delivery.session === undefined ? { "x-hasura-role": "admin" } : delivery.session,
      op: delivery.op,
      data: { old: delivery.old ?? null, new: delivery.new ?? null },
      trace_context: { trace_id: "0af7651916cd43dd8448eb211c80319c", span_id: "b7ad6b7169203331" },
    },
    created_at: new Date().toISOString(),
    id: randomUUID(),
    delivery_info: { max_retries: 0, current_retry: 0 },
    trigger: { name: delivery.trigger },
    table: { schema: "public", name: delivery.table },
  };
}

export async function deliver(backendUrl: string, delivery: Delivery): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${backendUrl}/triggers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(eventPayload(delivery)),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A cron trigger's delivery to `path` under ACTION_BASE_ENDPOINT, with the cron secret header (unless `secret` is null). */
export async function deliverCron(
  backendUrl: string,
  path: string,
  name: string,
  secret: string | null = CRON_SECRET,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${backendUrl}/actions/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret === null ? {} : { "x-metagame-cron-secret": secret }) },
    body: JSON.stringify({ scheduled_time: new Date().toISOString(), payload: {}, name, id: randomUUID(), comment: null }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

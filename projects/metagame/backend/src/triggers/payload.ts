/**
 * An event trigger's delivery as the engine POSTs it
 * (https://hasura.io/docs/2.0/event-triggers/payload/): the rows carry raw column names, not the
 * GraphQL custom names, and `session_variables` is null for a change made outside the engine.
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../app.js";
import type { DiscordApi } from "../remote/discord-rest.js";

export type Row = Record<string, unknown>;

export interface EventPayload {
  event: {
    session_variables: Record<string, unknown> | null;
    op: "INSERT" | "UPDATE" | "DELETE" | "MANUAL";
    data: { old: Row | null; new: Row | null };
  };
  created_at?: string;
  id?: string;
  delivery_info?: { max_retries: number; current_retry: number };
  trigger: { name: string };
  table?: { schema: string; name: string };
}

const rowOrNull = { anyOf: [{ type: "object" }, { type: "null" }] } as const;

export const eventPayloadSchema = {
  type: "object",
  required: ["event", "trigger"],
  properties: {
    event: {
      type: "object",
      required: ["op", "data"],
      properties: {
        session_variables: rowOrNull,
        op: { type: "string", enum: ["INSERT", "UPDATE", "DELETE", "MANUAL"] },
        data: { type: "object", properties: { old: rowOrNull, new: rowOrNull } },
      },
    },
    trigger: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
    table: { type: "object" },
    id: { type: "string" },
    created_at: { type: "string" },
    delivery_info: { type: "object" },
  },
} as const;

/** What a trigger handler works with. */
export interface TriggerContext {
  deps: BackendDeps;
  log: FastifyBaseLogger;
  /** The bot's Discord client; null when no bot token is configured. */
  discord: DiscordApi | null;
}

/** What a handler did, answered as the delivery's response body (the engine keeps it in its event log). */
export interface TriggerOutcome {
  message: string;
  [detail: string]: unknown;
}

export const text = (row: Row | null | undefined, column: string): string | null => {
  const value = row?.[column];
  return typeof value === "string" && value !== "" ? value : null;
};

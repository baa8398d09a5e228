/**
 * Inserts into audit_log_entries. The payload is built in SQL from an actor row source, so an
 * entry can be written in the same statement that finds its user (the refresh_token grant).
 */
import { join, type Sql, sql } from "@platform/core";
import type { AuthTables } from "./tables.js";

export interface AuditEntry {
  action: string;
  logType: string;
  traits?: Record<string, unknown>;
}

/** A row source with columns `id`, `email` and `phone` for the actor, from literal values. */
export const actorValues = (actor: { id: string; email?: string | null; phone?: string | null }): Sql =>
  sql`(VALUES (${actor.id}::text, ${actor.email ?? null}::text, ${actor.phone ?? null}::text)) AS actor(id, email, phone)`;

/**
 * INSERT ... SELECT of one row per entry and actor: payload `actor_id`, `actor_username` (email,
 * else phone, else ""), `actor_via_sso`, `action`, `log_type` and, when given, `traits`.
 * `actor` is a FROM item named `actor`, e.g. {@link actorValues}.
 */
export function auditInsert(t: AuthTables, actor: Sql, entries: readonly AuditEntry[], ipAddress: string): Sql {
  const rows = join(
    entries.map(
      (entry) =>
        sql`(${entry.action}::text, ${entry.logType}::text, ${entry.traits === undefined ? null : JSON.stringify(entry.traits)}::json)`,
    ),
  );
  const common = sql`'actor_id', actor.id::text, 'actor_username', coalesce(nullif(actor.email, ''), actor.phone, ''),
      'actor_via_sso', false, 'action', entry.action, 'log_type', entry.log_type`;
  return sql`
    INSERT INTO ${t.auditLog} (instance_id, id, payload, ip_address)
    SELECT '00000000-0000-0000-0000-000000000000', gen_random_uuid(),
      CASE WHEN entry.traits IS NULL THEN json_build_object(${common}) ELSE json_build_object(${common}, 'traits', entry.traits) END,
      ${ipAddress.slice(0, 64)}
    FROM ${actor} CROSS JOIN (VALUES ${rows}) AS entry(action, log_type, traits)`;
}

/** Inserts into audit_log_entries. */
import { randomUUID } from "node:crypto";
import { type Queryable, sql } from "@platform/core";
import type { AuthTables } from "./tables.js";

export async function insertAuditEntry(q: Queryable, t: AuthTables, payload: Record<string, unknown>, ipAddress: string): Promise<void> {
  await q.query(sql`
    INSERT INTO ${t.auditLog} (instance_id, id, payload, ip_address)
    VALUES ('00000000-0000-0000-0000-000000000000', ${randomUUID()}, ${JSON.stringify(payload)}::json, ${ipAddress.slice(0, 64)})`);
}

/** Audit log entries (auth.audit_log_entries), unless AUTH_AUDIT_LOG_DISABLE_POSTGRES is set. */
import type { Queryable } from "@platform/core";
import { insertAuditEntry } from "../db/audit-log.js";
import type { UserRow } from "../db/rows.js";
import type { AuthDeps, RequestMeta } from "./context.js";

const LOG_TYPES: Record<string, string> = {
  login: "account",
  logout: "account",
  user_signedup: "team",
  user_repeated_signup: "user",
  user_confirmation_requested: "user",
  user_modified: "user",
  user_updated_password: "user",
  user_reauthenticate_requested: "user",
  token_refreshed: "token",
  token_revoked: "token",
  user_invited: "team",
  user_deleted: "team",
  user_recovery_requested: "user",
};

export async function audit(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  user: Pick<UserRow, "id" | "email" | "phone">,
  action: keyof typeof LOG_TYPES,
  traits?: Record<string, unknown>,
): Promise<void> {
  if (deps.config.auditLogDisabled) return;
  const payload = {
    actor_id: user.id,
    actor_username: user.email || user.phone || "",
    actor_via_sso: false,
    action,
    log_type: LOG_TYPES[action],
    ...(traits ? { traits } : {}),
  };
  await insertAuditEntry(q, deps.tables, payload, meta.ip ?? "");
}

/** Audit log entries (auth.audit_log_entries), unless AUTH_AUDIT_LOG_DISABLE_POSTGRES is set. */
import type { Queryable, Sql } from "@platform/core";
import { type AuditEntry, actorValues, auditInsert } from "../db/audit-log.js";
import type { UserRow } from "../db/rows.js";
import type { AuthDeps, RequestMeta } from "./context.js";

const LOG_TYPES = {
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
  identity_linked: "user",
  invite_accepted: "team",
  identity_unlinked: "user",
  factor_in_progress: "factor",
  factor_unenrolled: "factor",
  challenge_created: "factor",
  verification_attempted: "factor",
  factor_deleted: "factor",
  factor_updated: "factor",
} as const;

export type AuditAction = keyof typeof LOG_TYPES;

export const auditEntry = (action: AuditAction, traits?: Record<string, unknown>): AuditEntry => ({
  action,
  logType: LOG_TYPES[action],
  ...(traits ? { traits } : {}),
});

/**
 * The statement writing `entries` for the actor rows `actor` (a FROM item named `actor` with id,
 * email and phone), or null when the audit log is disabled.
 */
export function auditStatement(
  deps: Pick<AuthDeps, "config" | "tables">,
  meta: RequestMeta,
  actor: Sql,
  entries: readonly AuditEntry[],
): Sql | null {
  if (deps.config.auditLogDisabled) return null;
  return auditInsert(deps.tables, actor, entries, meta.ip ?? "");
}

export async function audit(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  user: Pick<UserRow, "id" | "email" | "phone">,
  action: AuditAction,
  traits?: Record<string, unknown>,
): Promise<void> {
  const statement = auditStatement(deps, meta, actorValues(user), [auditEntry(action, traits)]);
  if (statement) await q.query(statement, { prepare: true });
}

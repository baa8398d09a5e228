/**
 * Admin authorisation (GoTrue's requireAdminCredentials): a valid token whose `role` claim is one
 * of JWT_ADMIN_ROLES. Sessionless tokens (service_role keys, tokens minted by tools) need no
 * user; a token that names a session must still have its user and session.
 */
import { findSession } from "../db/sessions.js";
import { findUserById } from "../db/users.js";
import type { AuthDeps } from "./context.js";
import { bearerToken } from "./current-user.js";
import { errors } from "./errors.js";
import { isUuid } from "./identifiers.js";

export const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** The admin behind a request, as GoTrue records it in the audit log: its role is its name. */
export interface AdminActor {
  role: string;
  /** Audit entries name the admin by role with the nil UUID as id, as GoTrue does. */
  auditActor: { id: string; email: string; phone: null };
}

/** POST /invite also admits these roles, besides JWT_ADMIN_ROLES. */
export const INVITE_ROLES = ["service_role", "platform_admin"] as const;

export async function authenticateAdmin(
  deps: AuthDeps,
  authorization: string | undefined,
  extraRoles: readonly string[] = [],
): Promise<AdminActor> {
  const claims = (await deps.keys.verify(bearerToken(authorization))) as Record<string, unknown>;
  const sessionId = claims.session_id;
  if (typeof sessionId === "string" && sessionId !== "" && sessionId !== NIL_UUID) {
    const sub = claims.sub;
    if (typeof sub !== "string" || sub === "") throw errors.missingSub();
    if (!isUuid(sub)) throw errors.subNotUuid();
    const user = await findUserById(deps.db, deps.tables, sub);
    if (!user) throw errors.userFromTokenNotFound();
    if (!isUuid(sessionId)) throw errors.sessionIdNotUuid();
    const session = await findSession(deps.db, deps.tables, sessionId);
    if (!session || session.user_id !== user.id) throw errors.sessionFromTokenNotFound();
  }
  const role = typeof claims.role === "string" ? claims.role : "";
  if (role === "" || !(deps.config.jwt.adminRoles.includes(role) || extraRoles.includes(role))) throw errors.notAdmin();
  return { role, auditActor: { id: NIL_UUID, email: role, phone: null } };
}

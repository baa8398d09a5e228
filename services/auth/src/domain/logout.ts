/**
 * POST /logout?scope=global|local|others: deletes sessions (their refresh tokens go with them).
 * Access tokens already issued stay valid until they expire, but the endpoints that load the
 * session answer session_not_found from then on.
 */
import { deleteSessions } from "../db/sessions.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import type { Authenticated } from "./current-user.js";
import { errors } from "./errors.js";

export type LogoutScope = "global" | "local" | "others";

export function parseLogoutScope(raw: string | undefined): LogoutScope {
  if (raw === undefined || raw === "" || raw === "global") return "global";
  if (raw === "local" || raw === "others") return raw;
  throw errors.validation(`Unsupported logout scope ${JSON.stringify(raw)}`);
}

export async function logout(deps: AuthDeps, meta: RequestMeta, auth: Authenticated, scope: LogoutScope): Promise<void> {
  const { user, session } = auth;
  await deps.db.transaction(async (tx) => {
    await audit(tx, deps, meta, user, "logout");
    // A token without a session (minted elsewhere) can only mean "everywhere".
    if (!session || scope === "global") await deleteSessions(tx, deps.tables, user.id);
    else if (scope === "local") await deleteSessions(tx, deps.tables, user.id, { only: session.id });
    else await deleteSessions(tx, deps.tables, user.id, { except: session.id });
  });
}

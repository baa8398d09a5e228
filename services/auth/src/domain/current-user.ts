/**
 * Bearer authentication for the user endpoints (GET/PUT /user, /reauthenticate, /logout): a
 * valid signature from one of our keys, an audience matching the request's, an existing user
 * and (when the token names one) an existing session, and no ban.
 */
import type { JWTPayload } from "jose";
import type { SessionRow, UserRow } from "../db/rows.js";
import { findSession } from "../db/sessions.js";
import { findUserById } from "../db/users.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { isUuid } from "./identifiers.js";
import { millis } from "./time.js";

export interface Authenticated {
  user: UserRow;
  session: SessionRow | undefined;
  claims: JWTPayload & Record<string, unknown>;
}

const BEARER = /^bearer (\S+)$/i;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";

export function bearerToken(authorization: string | undefined): string {
  const match = BEARER.exec(authorization?.trim() ?? "");
  if (!match) throw errors.noAuthorization();
  return match[1] as string;
}

export async function authenticate(deps: AuthDeps, meta: RequestMeta, authorization: string | undefined): Promise<Authenticated> {
  const claims = (await deps.keys.verify(bearerToken(authorization))) as Authenticated["claims"];
  const audience = meta.audience ?? deps.config.jwt.aud;
  const tokenAudience = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
  if (tokenAudience !== audience) throw errors.audienceMismatch();
  if (claims.sub === undefined || claims.sub === "") throw errors.missingSub();
  if (!isUuid(claims.sub)) throw errors.subNotUuid();
  const user = await findUserById(deps.db, deps.tables, claims.sub);
  if (!user) throw errors.userFromTokenNotFound();
  let session: SessionRow | undefined;
  const sessionId = claims.session_id;
  if (sessionId !== undefined && sessionId !== "" && sessionId !== NIL_UUID) {
    if (!isUuid(sessionId)) throw errors.sessionIdNotUuid();
    session = await findSession(deps.db, deps.tables, sessionId);
    if (!session || session.user_id !== user.id) throw errors.sessionFromTokenNotFound();
  }
  if (user.banned_until && millis(user.banned_until) > Date.now()) throw errors.bannedBearer();
  return { user, session, claims };
}

/** GoTrue's admin test for PUT /user app_metadata: a user of the default audience whose role is JWT_ADMIN_GROUP_NAME. */
export function isAdminUser(deps: AuthDeps, user: UserRow): boolean {
  return user.aud === deps.config.jwt.aud && user.role === deps.config.jwt.adminGroupName;
}

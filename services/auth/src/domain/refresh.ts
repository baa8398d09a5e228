/**
 * grant_type=refresh_token, with the rotation and reuse rules GoTrue's README documents:
 * - a valid token is revoked and a child issued;
 * - the revoked parent of the session's active token, used again within the reuse interval,
 *   gets that same child back (lost response, concurrent tabs): nothing changes;
 * - any other reuse of a revoked token revokes every token descended from it (with rotation
 *   enabled) and is answered refresh_token_already_used.
 *
 * The first case, nearly every request, is one statement (db rotateActiveToken). When it changes
 * nothing, a transaction locks the session, reads the token as any concurrent refresh left it and
 * decides which of the other cases (or which error) applies.
 */

import type { Queryable } from "@platform/core";
import { isLockTimeout } from "../db/errors.js";
import { limitLockWait, lockTokenState, type RotatedRow, revokeDescendants, rotateActiveToken } from "../db/refresh-tokens.js";
import { markSessionRefreshed, sessionContext, sessionContextOf } from "../db/sessions.js";
import { findUserById } from "../db/users.js";
import { audit, auditEntry, auditStatement } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { newRefreshToken, type TokenResponse, tokenResponse } from "./sessions.js";
import { millis } from "./time.js";

/** How long a refresh waits for another refresh of the same session before answering 409. */
const LOCK_WAIT_MS = 5_000;

type Outcome = { kind: "issued"; response: TokenResponse } | { kind: "reused" };

export async function refreshTokenGrant(deps: AuthDeps, meta: RequestMeta, presented: string | undefined): Promise<TokenResponse> {
  if (!presented) throw errors.refreshTokenRequired();
  // GoTrue's tokens are 12 characters; anything else cannot be one of ours.
  if (presented.length !== 12) throw errors.refreshTokenNotFound();
  const issued = newRefreshToken();
  const rotated = await rotateRefreshToken(deps.db, deps, meta, presented, issued);
  if (rotated) return rotatedResponse(deps, rotated, issued);
  let outcome: Outcome;
  try {
    outcome = await deps.db.transaction((tx) => resolve(tx, deps, meta, presented, issued));
  } catch (error) {
    if (isLockTimeout(error)) throw errors.refreshConflict();
    throw error;
  }
  // The revocations are committed before the reuse is refused.
  if (outcome.kind === "reused") throw errors.refreshTokenAlreadyUsed();
  return outcome.response;
}

/**
 * The database work of a refresh of an active token, as one statement (see rotateActiveToken):
 * undefined when `presented` is not an active token of a live session. Exported for the benchmark,
 * which runs exactly this work without HTTP or signing.
 */
export function rotateRefreshToken(
  q: Queryable,
  deps: Pick<AuthDeps, "tables" | "config">,
  meta: RequestMeta,
  presented: string,
  issued: string,
) {
  return rotateActiveToken(q, deps.tables, {
    presented,
    issued,
    userAgent: meta.userAgent,
    ip: meta.ip,
    audit: (actor) => auditStatement(deps, meta, actor, [auditEntry("token_revoked"), auditEntry("token_refreshed")]),
  });
}

function rotatedResponse(deps: AuthDeps, row: RotatedRow, issued: string): Promise<TokenResponse> {
  const { rotated_session_id: sessionId, amr_claims, identity_rows, factor_rows, ...user } = row;
  return tokenResponse(deps, user, sessionId, sessionContextOf({ amr_claims, identity_rows, factor_rows }), issued);
}

/** Why the one-statement rotation changed nothing, under the session's lock. */
async function resolve(tx: Queryable, deps: AuthDeps, meta: RequestMeta, presented: string, issued: string): Promise<Outcome> {
  const t = deps.tables;
  await limitLockWait(tx, LOCK_WAIT_MS);
  const token = await lockTokenState(tx, t, presented, deps.config.security.refreshTokenReuseIntervalMs);
  if (!token) throw errors.refreshTokenNotFound();
  const user = await findUserById(tx, t, token.user_id);
  if (!user) throw errors.refreshTokenNotFound();
  if (user.banned_until && millis(user.banned_until) > Date.now()) throw errors.refreshUserBanned();
  const sessionId = token.session_id;
  if (!sessionId || !token.session_exists) throw errors.refreshSessionNotFound();

  if (!token.revoked) {
    // Active after all (the session was locked by a refresh that then failed): rotate now.
    const rotated = await rotateRefreshToken(tx, deps, meta, presented, issued);
    if (!rotated) throw errors.refreshSessionNotFound();
    return { kind: "issued", response: await rotatedResponse(deps, rotated, issued) };
  }
  if (token.active_token !== null && token.active_parent === token.token && token.within_reuse_interval) {
    await audit(tx, deps, meta, user, "token_refreshed");
    await markSessionRefreshed(tx, t, sessionId, meta.userAgent, meta.ip);
    const context = await sessionContext(tx, t, user.id, sessionId);
    return { kind: "issued", response: await tokenResponse(deps, user, sessionId, context, token.active_token) };
  }
  if (deps.config.security.refreshTokenRotationEnabled) {
    const revoked = await revokeDescendants(tx, t, token.token);
    deps.logger.warn({ userId: user.id, sessionId, revoked }, "refresh token reused: possible abuse attempt");
    await audit(tx, deps, meta, user, "token_revoked", { reused: true });
  }
  return { kind: "reused" };
}

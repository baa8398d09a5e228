/**
 * grant_type=refresh_token (spec "States and transitions", reference 4.3):
 * - a valid token is revoked and a child issued;
 * - the revoked parent of the session's active token, used again within the reuse interval,
 *   gets that same child back (lost response, concurrent tabs): nothing changes;
 * - any other reuse of a revoked token revokes every token descended from it (with rotation
 *   enabled) and is answered refresh_token_already_used.
 * The session row and then the token row are locked in one transaction, so two concurrent
 * refreshes of one token run one after the other and the second sees the first's child.
 */

import { isLockTimeout } from "../db/errors.js";
import {
  activeTokenOfSession,
  findRefreshToken,
  insertRefreshToken,
  limitLockWait,
  lockRefreshToken,
  revokeDescendants,
  revokeRefreshToken,
} from "../db/refresh-tokens.js";
import { findSession, markSessionRefreshed } from "../db/sessions.js";
import { findUserById } from "../db/users.js";
import { audit } from "./audit.js";
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
  const t = deps.tables;
  const found = await findRefreshToken(deps.db, t, presented);
  if (!found) throw errors.refreshTokenNotFound();
  let outcome: Outcome;
  try {
    outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
      await limitLockWait(tx, LOCK_WAIT_MS);
      const session = found.session_id ? await findSession(tx, t, found.session_id, { lock: true }) : undefined;
      const token = await lockRefreshToken(tx, t, presented, deps.config.security.refreshTokenReuseIntervalMs);
      if (!token) throw errors.refreshTokenNotFound();
      const user = await findUserById(tx, t, token.user_id);
      if (!user) throw errors.refreshTokenNotFound();
      if (user.banned_until && millis(user.banned_until) > Date.now()) throw errors.refreshUserBanned();
      if (!session) throw errors.refreshSessionNotFound();

      let issued: string;
      if (token.revoked) {
        const active = await activeTokenOfSession(tx, t, session.id);
        if (active && active.parent === token.token && token.within_reuse_interval) {
          issued = active.token;
        } else {
          if (deps.config.security.refreshTokenRotationEnabled) {
            const revoked = await revokeDescendants(tx, t, token.token);
            deps.logger.warn({ userId: user.id, sessionId: session.id, revoked }, "refresh token reused: possible abuse attempt");
            await audit(tx, deps, meta, user, "token_revoked", { reused: true });
          }
          return { kind: "reused" };
        }
      } else {
        await revokeRefreshToken(tx, t, token.id);
        issued = newRefreshToken();
        await insertRefreshToken(tx, t, { token: issued, userId: user.id, sessionId: session.id, parent: token.token });
        await audit(tx, deps, meta, user, "token_revoked");
      }
      await audit(tx, deps, meta, user, "token_refreshed");
      await markSessionRefreshed(tx, t, session.id, meta.userAgent, meta.ip);
      return { kind: "issued", response: await tokenResponse(tx, deps, user, session.id, issued) };
    });
  } catch (error) {
    if (isLockTimeout(error)) throw errors.refreshConflict();
    throw error;
  }
  // The revocations above are committed before the reuse is refused.
  if (outcome.kind === "reused") throw errors.refreshTokenAlreadyUsed();
  return outcome.response;
}

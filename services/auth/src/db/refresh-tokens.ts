/**
 * Queries on refresh tokens. Only refreshes change a token row (logout deletes whole sessions), and
 * every refresh holds its session's row lock while it does, so refreshes of one session run one at
 * a time.
 */
import { empty, type Queryable, type Sql, sql } from "@platform/core";
import type { RefreshTokenRow, UserRow } from "./rows.js";
import { type SessionContextColumns, sessionContextColumns } from "./sessions.js";
import type { AuthTables } from "./tables.js";

export interface NewRefreshToken {
  token: string;
  userId: string;
  sessionId: string;
  parent: string | null;
}

export async function insertRefreshToken(q: Queryable, t: AuthTables, token: NewRefreshToken): Promise<RefreshTokenRow> {
  const { rows } = await q.query<RefreshTokenRow>(sql`
    INSERT INTO ${t.refreshTokens} (instance_id, token, user_id, session_id, parent)
    VALUES ('00000000-0000-0000-0000-000000000000', ${token.token}, ${token.userId}, ${token.sessionId}, ${token.parent})
    RETURNING *`);
  return rows[0] as RefreshTokenRow;
}

/**
 * Revokes the session's tokens and issues `issued` with no parent: a session whose assurance level
 * rose (an MFA verification) gets a token its earlier ones cannot reach, so an aal1 token reused
 * within the reuse interval does not get the aal2 session back (supabase/auth PR #2284).
 */
export async function replaceSessionTokens(q: Queryable, t: AuthTables, userId: string, sessionId: string, issued: string) {
  await q.query(sql`UPDATE ${t.refreshTokens} SET revoked = true, updated_at = now() WHERE session_id = ${sessionId} AND revoked = false`);
  await insertRefreshToken(q, t, { token: issued, userId, sessionId, parent: null });
}

export interface Rotation {
  /** The token presented. */
  presented: string;
  /** Its child, issued when the presented token is active. */
  issued: string;
  userAgent: string | undefined;
  ip: string | undefined;
  /** The audit statement for the actor rows given (a FROM item named `actor`), or null. */
  audit: (actor: Sql) => Sql | null;
}

export type RotatedRow = UserRow & SessionContextColumns & { rotated_session_id: string };

/**
 * The common refresh in one statement: when `presented` is an active token of an existing session
 * whose user is not banned, revoke it, insert its child, mark the session refreshed, write the
 * audit entries, and return the user with the session's amr claims and identities. Anything else
 * (unknown, revoked, banned, no session) changes nothing and returns no row.
 *
 * Concurrency: the session row is locked first (the sub-select, evaluated before the token row is
 * updated: the order logout's delete takes them); a concurrent refresh of the same token then finds
 * it revoked when its update re-checks `revoked = false`, and returns no row.
 */
export async function rotateActiveToken(q: Queryable, t: AuthTables, rotation: Rotation): Promise<RotatedRow | undefined> {
  const audit = rotation.audit(
    sql`(SELECT u.id, u.email, u.phone FROM ${t.users} u JOIN rotated ON u.id = rotated.user_id::uuid) AS actor`,
  );
  const { rows } = await q.query<RotatedRow>(
    sql`
    WITH rotated AS (
      UPDATE ${t.refreshTokens} token SET revoked = true, updated_at = now()
      WHERE token.token = ${rotation.presented} AND token.revoked = false
        AND token.session_id = (
          SELECT session.id FROM ${t.sessions} session
          WHERE session.id = (SELECT session_id FROM ${t.refreshTokens} WHERE token = ${rotation.presented})
          FOR UPDATE)
        AND EXISTS (SELECT 1 FROM ${t.users} u WHERE u.id = token.user_id::uuid AND (u.banned_until IS NULL OR u.banned_until <= now()))
      RETURNING token.token, token.user_id, token.session_id
    ), child AS (
      INSERT INTO ${t.refreshTokens} (instance_id, token, user_id, session_id, parent)
      SELECT '00000000-0000-0000-0000-000000000000', ${rotation.issued}, user_id, session_id, token FROM rotated
    ), touched AS (
      UPDATE ${t.sessions} SET refreshed_at = now(), updated_at = now(), user_agent = ${rotation.userAgent ?? null}, ip = ${rotation.ip ?? null}
      WHERE id = (SELECT session_id FROM rotated)
    )${audit ? sql`, audited AS (${audit})` : empty}
    SELECT u.*, rotated.session_id AS rotated_session_id, ${sessionContextColumns(t, sql`u.id`, sql`rotated.session_id`)}
    FROM rotated JOIN ${t.users} u ON u.id = rotated.user_id::uuid`,
    // The most frequent statement of the service: parsed and planned once per connection.
    { prepare: true },
  );
  return rows[0];
}

export interface TokenState extends RefreshTokenRow {
  /** Revoked no longer ago than the reuse interval (by the database clock). */
  within_reuse_interval: boolean;
  /** The session's latest token that is not revoked, and its parent. */
  active_token: string | null;
  active_parent: string | null;
  /** The token's session exists (and is now locked). */
  session_exists: boolean;
}

/**
 * Locks the session of `token` (waiting for a refresh of it in progress), then reads the token as
 * that refresh left it, with the session's active token. The lock is held until the transaction
 * ends. Undefined when no such token exists.
 */
export async function lockTokenState(q: Queryable, t: AuthTables, token: string, reuseIntervalMs: number): Promise<TokenState | undefined> {
  const locked = await q.query(sql`
    SELECT id FROM ${t.sessions} WHERE id = (SELECT session_id FROM ${t.refreshTokens} WHERE token = ${token}) FOR UPDATE`);
  // A new statement: it sees what a refresh that held the lock committed.
  const { rows } = await q.query<Omit<TokenState, "session_exists">>(sql`
    SELECT token.*,
      (token.updated_at + make_interval(secs => ${reuseIntervalMs / 1000}::float8) >= statement_timestamp()) AS within_reuse_interval,
      active.token AS active_token, active.parent AS active_parent
    FROM ${t.refreshTokens} token
    LEFT JOIN LATERAL (
      SELECT a.token, a.parent FROM ${t.refreshTokens} a
      WHERE a.session_id = token.session_id AND a.revoked = false ORDER BY a.id DESC LIMIT 1
    ) active ON true
    WHERE token.token = ${token}`);
  const row = rows[0];
  return row && { ...row, session_exists: locked.rowCount > 0 };
}

/** Revokes every token descended from `token` through the parent chain; returns how many were revoked. */
export async function revokeDescendants(q: Queryable, t: AuthTables, token: string): Promise<number> {
  const { rowCount } = await q.query(sql`
    WITH RECURSIVE descendants(token) AS (
      SELECT token FROM ${t.refreshTokens} WHERE parent = ${token}
      UNION
      SELECT child.token FROM ${t.refreshTokens} child JOIN descendants d ON child.parent = d.token
    )
    UPDATE ${t.refreshTokens} SET revoked = true, updated_at = now()
    WHERE token IN (SELECT token FROM descendants) AND revoked = false`);
  return rowCount;
}

/** Makes lock waits in this transaction give up after `ms` instead of queueing forever. */
export async function limitLockWait(q: Queryable, ms: number): Promise<void> {
  // SET LOCAL takes no bound parameters; set_config with is_local = true is the same thing.
  await q.query(sql`SELECT set_config('lock_timeout', ${`${Math.round(ms)}ms`}, true)`);
}

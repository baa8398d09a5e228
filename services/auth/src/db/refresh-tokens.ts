/**
 * Queries on refresh tokens. A refresh rotates under row locks (session, then token, the same
 * order logout's delete takes them), so concurrent refreshes of one session run one at a time.
 */
import { type Queryable, sql } from "@platform/core";
import type { RefreshTokenRow } from "./rows.js";
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

export async function findRefreshToken(q: Queryable, t: AuthTables, token: string): Promise<RefreshTokenRow | undefined> {
  const { rows } = await q.query<RefreshTokenRow>(sql`SELECT * FROM ${t.refreshTokens} WHERE token = ${token}`);
  return rows[0];
}

export interface LockedRefreshToken extends RefreshTokenRow {
  /** Revoked no longer ago than the reuse interval (by the database clock). */
  within_reuse_interval: boolean;
}

/** Locks the token's row and tells whether its revocation is recent enough to be reused. */
export async function lockRefreshToken(q: Queryable, t: AuthTables, token: string, reuseIntervalMs: number) {
  const { rows } = await q.query<LockedRefreshToken>(sql`
    SELECT *, (updated_at + make_interval(secs => ${reuseIntervalMs / 1000}::float8) >= statement_timestamp()) AS within_reuse_interval
    FROM ${t.refreshTokens} WHERE token = ${token} FOR UPDATE`);
  return rows[0];
}

/** The session's latest token that is not revoked. */
export async function activeTokenOfSession(q: Queryable, t: AuthTables, sessionId: string): Promise<RefreshTokenRow | undefined> {
  const { rows } = await q.query<RefreshTokenRow>(
    sql`SELECT * FROM ${t.refreshTokens} WHERE session_id = ${sessionId} AND revoked = false ORDER BY id DESC LIMIT 1`,
  );
  return rows[0];
}

export async function revokeRefreshToken(q: Queryable, t: AuthTables, id: number | string): Promise<void> {
  await q.query(sql`UPDATE ${t.refreshTokens} SET revoked = true, updated_at = now() WHERE id = ${id}`);
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

export async function deleteRefreshToken(q: Queryable, t: AuthTables, id: number | string): Promise<void> {
  await q.query(sql`DELETE FROM ${t.refreshTokens} WHERE id = ${id}`);
}

/** Makes lock waits in this transaction give up after `ms` instead of queueing forever. */
export async function limitLockWait(q: Queryable, ms: number): Promise<void> {
  // SET LOCAL takes no bound parameters; set_config with is_local = true is the same thing.
  await q.query(sql`SELECT set_config('lock_timeout', ${`${Math.round(ms)}ms`}, true)`);
}

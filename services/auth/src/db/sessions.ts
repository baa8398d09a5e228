/** Queries on sessions and their authentication-method (amr) claims. */
import { randomUUID } from "node:crypto";
import { type Queryable, type Sql, sql } from "@platform/core";
import type { AmrClaimRow, FactorRow, IdentityRow, SessionRow } from "./rows.js";
import type { AuthTables } from "./tables.js";

export interface NewSession {
  id: string;
  userId: string;
  userAgent: string | undefined;
  ip: string | undefined;
}

export async function insertSession(q: Queryable, t: AuthTables, session: NewSession): Promise<SessionRow> {
  const { rows } = await q.query<SessionRow>(sql`
    INSERT INTO ${t.sessions} (id, user_id, aal, user_agent, ip)
    VALUES (${session.id}, ${session.userId}, 'aal1', ${session.userAgent ?? null}, ${session.ip ?? null})
    RETURNING *`);
  return rows[0] as SessionRow;
}

export async function findSession(
  q: Queryable,
  t: AuthTables,
  id: string,
  options: { lock?: boolean } = {},
): Promise<SessionRow | undefined> {
  const lock = options.lock ? sql` FOR UPDATE` : sql``;
  const { rows } = await q.query<SessionRow>(sql`SELECT * FROM ${t.sessions} WHERE id = ${id}${lock}`);
  return rows[0];
}

export async function markSessionRefreshed(q: Queryable, t: AuthTables, id: string, userAgent: string | undefined, ip: string | undefined) {
  await q.query(
    sql`UPDATE ${t.sessions} SET refreshed_at = now(), updated_at = now(), user_agent = ${userAgent ?? null}, ip = ${ip ?? null} WHERE id = ${id}`,
  );
}

/** Deletes sessions of a user (their refresh tokens and amr claims go with them): all, only one, or all but one. */
export async function deleteSessions(q: Queryable, t: AuthTables, userId: string, scope: { only?: string; except?: string } = {}) {
  const filter = scope.only ? sql` AND id = ${scope.only}` : scope.except ? sql` AND id <> ${scope.except}` : sql``;
  const { rowCount } = await q.query(sql`DELETE FROM ${t.sessions} WHERE user_id = ${userId}${filter}`);
  return rowCount;
}

export async function recordAmrClaim(q: Queryable, t: AuthTables, sessionId: string, method: string): Promise<void> {
  await q.query(sql`
    INSERT INTO ${t.amrClaims} (id, session_id, authentication_method) VALUES (${randomUUID()}, ${sessionId}, ${method})
    ON CONFLICT (session_id, authentication_method) DO UPDATE SET updated_at = now()`);
}

/** A session's assurance level and the factor that raised it (GoTrue's UpdateAALAndAssociatedFactor). */
export async function setSessionAal(q: Queryable, t: AuthTables, id: string, aal: "aal1" | "aal2", factorId: string | null) {
  await q.query(sql`UPDATE ${t.sessions} SET aal = ${aal}, factor_id = ${factorId}, updated_at = now() WHERE id = ${id}`);
}

/** GoTrue's InvalidateSessionsWithAALLessThan(aal2): the user's sessions not raised by a factor end. */
export async function deleteSessionsBelowAal2(q: Queryable, t: AuthTables, userId: string): Promise<void> {
  await q.query(sql`DELETE FROM ${t.sessions} WHERE user_id = ${userId} AND aal < 'aal2'`);
}

/**
 * GoTrue's DowngradeSessionsToAAL1: the sessions a removed factor raised lose its amr claim
 * (`method`) and go back to aal1.
 */
export async function downgradeFactorSessions(q: Queryable, t: AuthTables, userId: string, factorId: string, method: string) {
  await q.query(sql`
    WITH raised AS (SELECT id FROM ${t.sessions} WHERE user_id = ${userId} AND factor_id = ${factorId}),
    claims AS (
      DELETE FROM ${t.amrClaims} WHERE session_id IN (SELECT id FROM raised) AND authentication_method = ${method}
    )
    UPDATE ${t.sessions} SET aal = 'aal1', factor_id = NULL, updated_at = now() WHERE id IN (SELECT id FROM raised)`);
}

/** What an access token and the session response need besides the user: amr claims, identities and factors. */
export interface SessionContext {
  amr: AmrClaimRow[];
  identities: IdentityRow[];
  factors: FactorRow[];
}

/**
 * Select-list items `amr_claims`, `identity_rows` and `factor_rows` (JSON arrays) for the session `sessionId` of
 * the user `userId`, so a statement can return them beside what it changes.
 */
export function sessionContextColumns(t: AuthTables, userId: Sql, sessionId: Sql): Sql {
  return sql`
    (SELECT coalesce(json_agg(json_build_object(
        'authentication_method', claim.authentication_method,
        'timestamp', floor(extract(epoch FROM claim.updated_at))::int
      ) ORDER BY claim.updated_at DESC, claim.authentication_method), '[]'::json)
      FROM ${t.amrClaims} claim WHERE claim.session_id = ${sessionId}) AS amr_claims,
    (SELECT coalesce(json_agg(identity ORDER BY identity.created_at, identity.id), '[]'::json)
      FROM ${t.identities} identity WHERE identity.user_id = ${userId}) AS identity_rows,
    (SELECT coalesce(json_agg(factor ORDER BY factor.created_at, factor.id), '[]'::json)
      FROM ${t.factors} factor WHERE factor.user_id = ${userId}) AS factor_rows`;
}

export interface SessionContextColumns {
  amr_claims: AmrClaimRow[];
  identity_rows: IdentityRow[];
  factor_rows: FactorRow[];
}

export const sessionContextOf = (row: SessionContextColumns): SessionContext => ({
  amr: row.amr_claims,
  identities: row.identity_rows,
  factors: row.factor_rows,
});

export async function sessionContext(q: Queryable, t: AuthTables, userId: string, sessionId: string): Promise<SessionContext> {
  const { rows } = await q.query<SessionContextColumns>(
    sql`SELECT ${sessionContextColumns(t, sql`${userId}::uuid`, sql`${sessionId}::uuid`)}`,
  );
  return sessionContextOf(rows[0] as SessionContextColumns);
}

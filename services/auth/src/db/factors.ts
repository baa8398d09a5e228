/** Queries on MFA factors and their challenges (GoTrue's mfa_factors and mfa_challenges). */
import { list, type Queryable, sql } from "@platform/core";
import type { ChallengeRow, FactorRow, FactorType } from "./rows.js";
import type { AuthTables } from "./tables.js";

export async function factorsOfUser(q: Queryable, t: AuthTables, userId: string): Promise<FactorRow[]> {
  const { rows } = await q.query<FactorRow>(sql`SELECT * FROM ${t.factors} WHERE user_id = ${userId} ORDER BY created_at, id`);
  return rows;
}

export async function factorsOfUsers(q: Queryable, t: AuthTables, userIds: readonly string[]): Promise<FactorRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await q.query<FactorRow>(sql`SELECT * FROM ${t.factors} WHERE user_id IN ${list(userIds)} ORDER BY created_at, id`);
  return rows;
}

export async function hasVerifiedFactor(q: Queryable, t: AuthTables, userId: string): Promise<boolean> {
  const { rows } = await q.query(sql`SELECT 1 FROM ${t.factors} WHERE user_id = ${userId} AND status = 'verified' LIMIT 1`);
  return rows.length > 0;
}

/** GoTrue's DeleteExpiredFactors, for one user: unverified factors never challenged, older than `validityMs`. */
export async function deleteExpiredFactors(q: Queryable, t: AuthTables, userId: string, validityMs: number): Promise<void> {
  await q.query(sql`
    DELETE FROM ${t.factors} factor
    WHERE factor.user_id = ${userId} AND factor.status <> 'verified'
      AND factor.created_at + ${validityMs} * interval '1 millisecond' < now()
      AND NOT EXISTS (SELECT 1 FROM ${t.challenges} challenge WHERE challenge.factor_id = factor.id)`);
}

export interface NewFactor {
  id: string;
  userId: string;
  type: FactorType;
  friendlyName: string;
  secret?: string | undefined;
  phone?: string | undefined;
}

export async function insertFactor(q: Queryable, t: AuthTables, factor: NewFactor): Promise<FactorRow> {
  const { rows } = await q.query<FactorRow>(sql`
    INSERT INTO ${t.factors} (id, user_id, friendly_name, factor_type, status, secret, phone)
    VALUES (${factor.id}, ${factor.userId}, ${factor.friendlyName}, ${factor.type}, 'unverified',
      ${factor.secret ?? null}, ${factor.phone ?? null})
    RETURNING *`);
  return rows[0] as FactorRow;
}

export async function findOwnedFactor(q: Queryable, t: AuthTables, userId: string, id: string): Promise<FactorRow | undefined> {
  const { rows } = await q.query<FactorRow>(sql`SELECT * FROM ${t.factors} WHERE id = ${id} AND user_id = ${userId}`);
  return rows[0];
}

export async function lockFactor(q: Queryable, t: AuthTables, id: string): Promise<FactorRow | undefined> {
  const { rows } = await q.query<FactorRow>(sql`SELECT * FROM ${t.factors} WHERE id = ${id} FOR UPDATE`);
  return rows[0];
}

export async function deleteFactor(q: Queryable, t: AuthTables, id: string): Promise<FactorRow | undefined> {
  const { rows } = await q.query<FactorRow>(sql`DELETE FROM ${t.factors} WHERE id = ${id} RETURNING *`);
  return rows[0];
}

export async function deleteUnverifiedFactors(q: Queryable, t: AuthTables, userId: string, type: FactorType, phone?: string) {
  const samePhone = phone === undefined ? sql`` : sql` AND phone = ${phone}`;
  await q.query(sql`
    DELETE FROM ${t.factors} WHERE user_id = ${userId} AND status = 'unverified' AND factor_type = ${type}${samePhone}`);
}

export async function markFactorVerified(q: Queryable, t: AuthTables, id: string): Promise<void> {
  await q.query(sql`UPDATE ${t.factors} SET status = 'verified', updated_at = now() WHERE id = ${id}`);
}

/**
 * Records `step` as the factor's last accepted TOTP time step, when it is later than the last one:
 * false when a code of this step (or a later one) was accepted already, so a code works once.
 */
export async function claimTotpStep(q: Queryable, t: AuthTables, id: string, step: number): Promise<boolean> {
  const { rows } = await q.query(sql`
    UPDATE ${t.factors} SET last_totp_step = ${step}, updated_at = now()
    WHERE id = ${id} AND (last_totp_step IS NULL OR last_totp_step < ${step})
    RETURNING id`);
  return rows.length > 0;
}

export async function updateFactorDetails(
  q: Queryable,
  t: AuthTables,
  id: string,
  change: { friendlyName?: string | undefined; phone?: string | undefined },
): Promise<FactorRow> {
  const { rows } = await q.query<FactorRow>(sql`
    UPDATE ${t.factors} SET
      friendly_name = coalesce(${change.friendlyName ?? null}, friendly_name),
      phone = coalesce(${change.phone ?? null}, phone),
      updated_at = now()
    WHERE id = ${id}
    RETURNING *`);
  return rows[0] as FactorRow;
}

export interface NewChallenge {
  id: string;
  factorId: string;
  ip: string;
  otpHash?: string | undefined;
}

/** Writes a challenge and marks its factor challenged now (GoTrue's WriteChallengeToDatabase). */
export async function insertChallenge(q: Queryable, t: AuthTables, challenge: NewChallenge): Promise<ChallengeRow> {
  const { rows } = await q.query<ChallengeRow>(sql`
    WITH touched AS (UPDATE ${t.factors} SET last_challenged_at = now() WHERE id = ${challenge.factorId})
    INSERT INTO ${t.challenges} (id, factor_id, ip_address, otp_code)
    VALUES (${challenge.id}, ${challenge.factorId}, ${challenge.ip}::inet, ${challenge.otpHash ?? null})
    RETURNING id, factor_id, created_at, verified_at, host(ip_address) AS ip_address, otp_code`);
  return rows[0] as ChallengeRow;
}

/** A challenge of the factor, with whether it was made from `ip`. */
export async function findChallenge(
  q: Queryable,
  t: AuthTables,
  factorId: string,
  id: string,
  ip: string,
): Promise<(ChallengeRow & { same_ip: boolean }) | undefined> {
  const { rows } = await q.query<ChallengeRow & { same_ip: boolean }>(sql`
    SELECT id, factor_id, created_at, verified_at, host(ip_address) AS ip_address, otp_code,
      ip_address = ${ip}::inet AS same_ip
    FROM ${t.challenges} WHERE id = ${id} AND factor_id = ${factorId}`);
  return rows[0];
}

/** Marks a challenge verified, once: false when it was verified already (a concurrent verify). */
export async function claimChallenge(q: Queryable, t: AuthTables, id: string): Promise<boolean> {
  const { rows } = await q.query(sql`UPDATE ${t.challenges} SET verified_at = now() WHERE id = ${id} AND verified_at IS NULL RETURNING id`);
  return rows.length > 0;
}

export async function deleteChallenge(q: Queryable, t: AuthTables, id: string): Promise<void> {
  await q.query(sql`DELETE FROM ${t.challenges} WHERE id = ${id}`);
}

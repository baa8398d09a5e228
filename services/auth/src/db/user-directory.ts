/**
 * Queries behind the admin API and /verify: users of one audience (listed, counted, or found by
 * email, phone or pending phone change), identities of many users at once, and the changes a
 * soft delete makes to identities.
 */
import { list, type Queryable, sql } from "@platform/core";
import type { IdentityRow, UserRow } from "./rows.js";
import type { AuthTables } from "./tables.js";

export interface UserListQuery {
  aud: string;
  /** Substring of the email or of user_metadata.full_name (case-insensitive for the name). */
  filter?: string | undefined;
  ascending: boolean;
  limit: number;
  offset: number;
}

/** `%` and `_` in a LIKE pattern stand for themselves. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

export async function listUsers(q: Queryable, t: AuthTables, query: UserListQuery): Promise<{ users: UserRow[]; count: number }> {
  const filter = query.filter
    ? sql` AND (email LIKE ${likePattern(query.filter)} OR raw_user_meta_data->>'full_name' ILIKE ${likePattern(query.filter)})`
    : sql``;
  const where = sql`WHERE aud = ${query.aud}${filter}`;
  const order = query.ascending ? sql`created_at ASC, id ASC` : sql`created_at DESC, id DESC`;
  const [page, total] = await Promise.all([
    q.query<UserRow>(sql`SELECT * FROM ${t.users} ${where} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`),
    q.query<{ count: number | string }>(sql`SELECT count(*) AS count FROM ${t.users} ${where}`),
  ]);
  return { users: page.rows, count: Number(total.rows[0]?.count ?? 0) };
}

/** The identities of several users, oldest first. */
export async function identitiesOfUsers(q: Queryable, t: AuthTables, userIds: readonly string[]): Promise<IdentityRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await q.query<IdentityRow>(sql`SELECT * FROM ${t.identities} WHERE user_id IN ${list(userIds)} ORDER BY created_at, id`);
  return rows;
}

export async function identityOfUser(q: Queryable, t: AuthTables, userId: string, provider: string): Promise<IdentityRow | undefined> {
  const { rows } = await q.query<IdentityRow>(
    sql`SELECT * FROM ${t.identities} WHERE user_id = ${userId} AND provider = ${provider} ORDER BY created_at, id LIMIT 1`,
  );
  return rows[0];
}

export async function setIdentityProviderId(q: Queryable, t: AuthTables, id: string, providerId: string): Promise<void> {
  await q.query(sql`UPDATE ${t.identities} SET provider_id = ${providerId}, updated_at = now() WHERE id = ${id}`);
}

/** GoTrue's FindUserByEmailAndAudience: a non-SSO user with this (lower-cased) email in this audience. */
export async function findUserByEmailInAudience(q: Queryable, t: AuthTables, email: string, aud: string): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE lower(email) = ${email.toLowerCase()} AND aud = ${aud} AND is_sso_user = false LIMIT 1`,
    { prepare: true },
  );
  return rows[0];
}

export async function findUserByPhoneInAudience(q: Queryable, t: AuthTables, phone: string, aud: string): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE phone = ${phone} AND aud = ${aud} AND is_sso_user = false LIMIT 1`,
  );
  return rows[0];
}

export async function findUserByPhoneChange(q: Queryable, t: AuthTables, phone: string, aud: string): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE phone_change = ${phone} AND aud = ${aud} AND is_sso_user = false LIMIT 1`,
  );
  return rows[0];
}

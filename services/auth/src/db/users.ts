/** Queries on the users table. */
import { ident, join, type Queryable, type Sql, sql } from "@platform/core";
import type { Json, UserRow } from "./rows.js";
import type { AuthTables } from "./tables.js";
import { type Now, value } from "./values.js";

export interface NewUser {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  phone: string | null;
  encryptedPassword: string | null;
  appMetadata: Json;
  userMetadata: Json;
  isAnonymous: boolean;
  emailConfirmed: boolean;
  phoneConfirmed: boolean;
}

/** Columns a domain operation may change; `NOW` sets a timestamp from the database clock. */
export type UserPatch = Partial<{
  [K in keyof UserRow as K extends "id" | "created_at" | "updated_at" | "confirmed_at" ? never : K]: UserRow[K] | Now;
}>;

export async function insertUser(q: Queryable, t: AuthTables, user: NewUser): Promise<UserRow> {
  const { rows } = await q.query<UserRow>(sql`
    INSERT INTO ${t.users} (instance_id, id, aud, role, email, phone, encrypted_password, raw_app_meta_data, raw_user_meta_data,
      is_anonymous, email_confirmed_at, phone_confirmed_at)
    VALUES ('00000000-0000-0000-0000-000000000000', ${user.id}, ${user.aud}, ${user.role}, ${user.email}, ${user.phone},
      ${user.encryptedPassword}, ${value(user.appMetadata)}, ${value(user.userMetadata)}, ${user.isAnonymous},
      ${user.emailConfirmed ? sql`now()` : null}, ${user.phoneConfirmed ? sql`now()` : null})
    RETURNING *`);
  return rows[0] as UserRow;
}

export async function findUserById(
  q: Queryable,
  t: AuthTables,
  id: string,
  options: { lock?: boolean } = {},
): Promise<UserRow | undefined> {
  const lock = options.lock ? sql` FOR UPDATE` : sql``;
  const { rows } = await q.query<UserRow>(sql`SELECT * FROM ${t.users} WHERE id = ${id}${lock}`, { prepare: true });
  return rows[0];
}

/** The (non-SSO) user with this email, whatever its audience: the unique index spans audiences. */
export async function findUserByEmail(q: Queryable, t: AuthTables, email: string): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE lower(email) = ${email.toLowerCase()} AND is_sso_user = false LIMIT 1`,
  );
  return rows[0];
}

/** The user an invite (or a confirmation) token hash belongs to. */
export async function findUserByConfirmationToken(q: Queryable, t: AuthTables, token: string, lock = false): Promise<UserRow | undefined> {
  if (token === "") return undefined;
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE confirmation_token = ${token} LIMIT 1${lock ? sql` FOR UPDATE` : sql``}`,
  );
  return rows[0];
}

/** The non-SSO users whose email is one of `emails` (lower-cased). */
export async function usersWithEmails(q: Queryable, t: AuthTables, emails: readonly string[]): Promise<UserRow[]> {
  if (emails.length === 0) return [];
  const { rows } = await q.query<UserRow>(
    sql`SELECT * FROM ${t.users} WHERE lower(email) = ANY(${[...emails]}::text[]) AND is_sso_user = false ORDER BY created_at, id`,
  );
  return rows;
}

export async function findUserByPhone(q: Queryable, t: AuthTables, phone: string): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(sql`SELECT * FROM ${t.users} WHERE phone = ${phone} LIMIT 1`);
  return rows[0];
}

/** Whether another user holds this email (as address or as a pending change to it). */
export async function emailTaken(q: Queryable, t: AuthTables, email: string, exceptUserId: string): Promise<boolean> {
  const { rows } = await q.query(
    sql`SELECT 1 FROM ${t.users} WHERE lower(email) = ${email.toLowerCase()} AND is_sso_user = false AND id <> ${exceptUserId} LIMIT 1`,
  );
  return rows.length > 0;
}

export async function phoneTaken(q: Queryable, t: AuthTables, phone: string, exceptUserId: string): Promise<boolean> {
  const { rows } = await q.query(sql`SELECT 1 FROM ${t.users} WHERE phone = ${phone} AND id <> ${exceptUserId} LIMIT 1`);
  return rows.length > 0;
}

/** The SET list of an UPDATE applying `patch` (and stamping updated_at). */
export function userSets(patch: UserPatch): Sql {
  const sets = Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([column, v]) => sql`${ident(column)} = ${value(v)}`);
  return join([...sets, sql`updated_at = now()`]);
}

export async function updateUser(q: Queryable, t: AuthTables, id: string, patch: UserPatch): Promise<UserRow> {
  const { rows } = await q.query<UserRow>(
    sql`UPDATE ${t.users} SET ${userSets(patch)} WHERE id = ${id} RETURNING *`,
    // One text per set of columns a call site changes: a handful, each planned once per connection.
    { prepare: true },
  );
  const row = rows[0];
  if (!row) throw new Error(`user ${id} disappeared during an update`);
  return row;
}

export async function deleteUser(q: Queryable, t: AuthTables, id: string): Promise<boolean> {
  const { rowCount } = await q.query(sql`DELETE FROM ${t.users} WHERE id = ${id}`);
  return rowCount > 0;
}

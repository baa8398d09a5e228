/** Queries on the identities table. */
import { type Queryable, sql } from "@platform/core";
import type { IdentityRow, Json } from "./rows.js";
import type { AuthTables } from "./tables.js";
import { value } from "./values.js";

export interface NewIdentity {
  userId: string;
  provider: string;
  providerId: string;
  identityData: Json;
}

export async function insertIdentity(q: Queryable, t: AuthTables, identity: NewIdentity): Promise<IdentityRow> {
  const { rows } = await q.query<IdentityRow>(sql`
    INSERT INTO ${t.identities} (provider_id, user_id, identity_data, provider, last_sign_in_at)
    VALUES (${identity.providerId}, ${identity.userId}, ${value(identity.identityData)}, ${identity.provider}, now())
    RETURNING *`);
  return rows[0] as IdentityRow;
}

export async function identitiesOfUser(q: Queryable, t: AuthTables, userId: string): Promise<IdentityRow[]> {
  const { rows } = await q.query<IdentityRow>(sql`SELECT * FROM ${t.identities} WHERE user_id = ${userId} ORDER BY created_at, id`);
  return rows;
}

export async function updateIdentityData(q: Queryable, t: AuthTables, id: string, identityData: Json): Promise<void> {
  await q.query(sql`UPDATE ${t.identities} SET identity_data = ${value(identityData)}, updated_at = now() WHERE id = ${id}`);
}

export async function findIdentity(q: Queryable, t: AuthTables, providerId: string, provider: string): Promise<IdentityRow | undefined> {
  const { rows } = await q.query<IdentityRow>(
    sql`SELECT * FROM ${t.identities} WHERE provider_id = ${providerId} AND provider = ${provider}`,
  );
  return rows[0];
}

/** The identities whose (lower-cased) email is one of `emails`. */
export async function identitiesWithEmails(q: Queryable, t: AuthTables, emails: readonly string[]): Promise<IdentityRow[]> {
  if (emails.length === 0) return [];
  const { rows } = await q.query<IdentityRow>(
    sql`SELECT * FROM ${t.identities} WHERE email = ANY(${[...emails]}::text[]) ORDER BY created_at, id`,
  );
  return rows;
}

/** An identity signed in again: its data replaced with the provider's latest. */
export async function touchIdentity(q: Queryable, t: AuthTables, id: string, identityData: Json): Promise<void> {
  await q.query(
    sql`UPDATE ${t.identities} SET identity_data = ${value(identityData)}, last_sign_in_at = now(), updated_at = now() WHERE id = ${id}`,
  );
}

export async function deleteIdentity(q: Queryable, t: AuthTables, id: string): Promise<void> {
  await q.query(sql`DELETE FROM ${t.identities} WHERE id = ${id}`);
}

/** The generated signing keys shared by every instance. */
import { type Queryable, sql } from "@platform/core";
import type { Json, SigningKeyRow } from "./rows.js";
import type { AuthTables } from "./tables.js";

/** Serialises key creation across instances for the rest of the transaction. */
export async function lockSigningKeys(q: Queryable, key: number): Promise<void> {
  await q.query(sql`SELECT pg_advisory_xact_lock(${key})`);
}

export async function latestSigningKey(q: Queryable, t: AuthTables, algorithm: string): Promise<SigningKeyRow | undefined> {
  const { rows } = await q.query<SigningKeyRow>(
    sql`SELECT * FROM ${t.signingKeys} WHERE algorithm = ${algorithm} ORDER BY created_at DESC, id LIMIT 1`,
  );
  return rows[0];
}

export async function allSigningKeys(q: Queryable, t: AuthTables): Promise<SigningKeyRow[]> {
  const { rows } = await q.query<SigningKeyRow>(sql`SELECT * FROM ${t.signingKeys} ORDER BY created_at DESC, id`);
  return rows;
}

export async function insertSigningKey(
  q: Queryable,
  t: AuthTables,
  key: { id: string; algorithm: string; privateJwk: Json; publicJwk: Json },
) {
  await q.query(sql`
    INSERT INTO ${t.signingKeys} (id, algorithm, private_jwk, public_jwk)
    VALUES (${key.id}, ${key.algorithm}, ${JSON.stringify(key.privateJwk)}::jsonb, ${JSON.stringify(key.publicJwk)}::jsonb)`);
}

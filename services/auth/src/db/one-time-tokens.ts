/** Queries on one_time_tokens: one row per user and token type, replaced by each new send. */
import { randomUUID } from "node:crypto";
import { type Queryable, sql } from "@platform/core";
import type { OneTimeTokenType } from "./rows.js";
import type { AuthTables } from "./tables.js";

export async function saveOneTimeToken(
  q: Queryable,
  t: AuthTables,
  token: { userId: string; type: OneTimeTokenType; tokenHash: string; relatesTo: string },
): Promise<void> {
  await q.query(
    sql`
    INSERT INTO ${t.oneTimeTokens} (id, user_id, token_type, token_hash, relates_to)
    VALUES (${randomUUID()}, ${token.userId}, ${token.type}, ${token.tokenHash}, ${token.relatesTo.toLowerCase()})
    ON CONFLICT (user_id, token_type) DO UPDATE
      SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to, updated_at = now()`,
    { prepare: true },
  );
}

export async function deleteOneTimeTokens(q: Queryable, t: AuthTables, userId: string, type?: OneTimeTokenType): Promise<void> {
  const filter = type ? sql` AND token_type = ${type}` : sql``;
  await q.query(sql`DELETE FROM ${t.oneTimeTokens} WHERE user_id = ${userId}${filter}`);
}

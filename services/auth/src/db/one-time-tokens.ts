/** Queries on one_time_tokens: one row per user and token type, replaced by each new send. */
import { randomUUID } from "node:crypto";
import { ident, join, type Queryable, type Sql, sql } from "@platform/core";
import type { OneTimeTokenType, UserRow } from "./rows.js";
import type { AuthTables } from "./tables.js";
import { type UserPatch, userSets } from "./users.js";

export interface OneTimeToken {
  userId: string;
  type: OneTimeTokenType;
  tokenHash: string;
  relatesTo: string;
}

/** INSERT ... SELECT of the token for each row of `source` (a FROM item), replacing the user's token of that type. */
function tokenUpsert(t: AuthTables, token: Omit<OneTimeToken, "userId">, userId: Sql, source: Sql | null): Sql {
  const from = source ? sql` FROM ${source}` : sql``;
  return sql`
    INSERT INTO ${t.oneTimeTokens} (id, user_id, token_type, token_hash, relates_to)
    SELECT ${randomUUID()}, ${userId}, ${token.type}, ${token.tokenHash}, ${token.relatesTo.toLowerCase()}${from}
    ON CONFLICT (user_id, token_type) DO UPDATE
      SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to, updated_at = now()`;
}

export async function saveOneTimeToken(q: Queryable, t: AuthTables, token: OneTimeToken): Promise<void> {
  await q.query(tokenUpsert(t, token, sql`${token.userId}::uuid`, null), { prepare: true });
}

export async function deleteOneTimeTokens(q: Queryable, t: AuthTables, userId: string, type?: OneTimeTokenType): Promise<void> {
  const filter = type ? sql` AND token_type = ${type}` : sql``;
  await q.query(sql`DELETE FROM ${t.oneTimeTokens} WHERE user_id = ${userId}${filter}`);
}

type SentAtColumn = { [K in keyof UserRow]: K extends `${string}_sent_at` ? K : never }[keyof UserRow];

/** A new code for a user, recorded only if the last code of its kind is old enough. */
export interface CodeClaim {
  token: OneTimeToken;
  /** The user's columns the code sets: its token column and `sentAt` (as NOW), and any more. */
  patch: UserPatch;
  /** When the last code of this kind was sent, and how long must have passed since. */
  sentAt: SentAtColumn;
  frequencyMs: number;
  /** More data-modifying statements for the claimed user (audit entries): each may read the FROM item `claimed`. */
  also?: readonly Sql[];
}

/**
 * Records a code in one statement: the user's row gets the code (and its sent-at stamp) only when
 * the previous one was sent at least `frequencyMs` ago by the database clock, and for that row
 * alone the one_time_tokens row is replaced and `also` is written. The UPDATE takes the row lock
 * and, under READ COMMITTED, re-checks its condition after a concurrent send commits, so two
 * requests cannot both send. Answers the updated user, or undefined when the last code is too
 * recent (or the user is gone). One round trip instead of a lock, a check and three writes.
 */
export async function claimCode(q: Queryable, t: AuthTables, claim: CodeClaim): Promise<UserRow | undefined> {
  const { token, sentAt } = claim;
  const column = ident(sentAt);
  const writes = [tokenUpsert(t, token, sql`claimed.id`, sql`claimed`), ...(claim.also ?? [])].map(
    (statement, i) => sql`${ident(`write_${i}`)} AS (${statement})`,
  );
  const { rows } = await q.query<UserRow>(
    sql`
    WITH claimed AS (
      UPDATE ${t.users} SET ${userSets(claim.patch)}
      WHERE id = ${token.userId}
        AND (${column} IS NULL OR ${column} <= now() - make_interval(secs => ${claim.frequencyMs / 1000}::float8))
      RETURNING *
    ), ${join(writes)}
    SELECT * FROM claimed`,
    { prepare: true },
  );
  return rows[0];
}

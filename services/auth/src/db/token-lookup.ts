/** Finding a one-time token by its hash (what email links and `token_hash` carry). */
import { list, type Queryable, sql } from "@platform/core";
import type { OneTimeTokenType } from "./rows.js";
import type { AuthTables } from "./tables.js";

export interface OneTimeTokenRow {
  id: string;
  user_id: string;
  token_type: OneTimeTokenType;
  token_hash: string;
  relates_to: string;
}

export async function findOneTimeToken(
  q: Queryable,
  t: AuthTables,
  tokenHash: string,
  types: readonly OneTimeTokenType[],
): Promise<OneTimeTokenRow | undefined> {
  const { rows } = await q.query<OneTimeTokenRow>(sql`
    SELECT id, user_id, token_type::text AS token_type, token_hash, relates_to FROM ${t.oneTimeTokens}
    WHERE token_hash = ${tokenHash} AND token_type::text IN ${list(types)}
    ORDER BY created_at DESC LIMIT 1`);
  return rows[0];
}

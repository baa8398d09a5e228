/**
 * Queries on oauth_client_states: the PKCE verifier this service keeps as the client of a
 * provider that requires PKCE (x), between /authorize and /callback (GoTrue's
 * internal/models/oauth_client_state.go).
 */
import { type Queryable, sql } from "@platform/core";
import type { Timestamp } from "./rows.js";
import type { AuthTables } from "./tables.js";

export interface OAuthClientStateRow {
  id: string;
  provider_type: string;
  code_verifier: string | null;
  created_at: Timestamp;
}

export async function insertOAuthClientState(q: Queryable, t: AuthTables, row: { id: string; providerType: string; codeVerifier: string }) {
  await q.query(sql`
    INSERT INTO ${t.oauthClientStates} (id, provider_type, code_verifier) VALUES (${row.id}, ${row.providerType}, ${row.codeVerifier})`);
}

/** Takes the row out: a verifier serves one code exchange. */
export async function takeOAuthClientState(q: Queryable, t: AuthTables, id: string): Promise<OAuthClientStateRow | undefined> {
  const { rows } = await q.query<OAuthClientStateRow>(sql`DELETE FROM ${t.oauthClientStates} WHERE id = ${id} RETURNING *`);
  return rows[0];
}

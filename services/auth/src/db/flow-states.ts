/**
 * Queries on flow_state: one row per PKCE flow (GoTrue's internal/models/flow_state.go). A row
 * holds the client's code challenge and the auth code it will exchange; it is deleted when the
 * code is exchanged.
 */
import { type Queryable, sql } from "@platform/core";
import type { Timestamp } from "./rows.js";
import type { AuthTables } from "./tables.js";

export interface FlowStateRow {
  id: string;
  user_id: string | null;
  auth_code: string | null;
  code_challenge_method: "s256" | "plain" | null;
  code_challenge: string | null;
  provider_type: string;
  provider_access_token: string | null;
  provider_refresh_token: string | null;
  authentication_method: string;
  auth_code_issued_at: Timestamp | null;
  created_at: Timestamp;
}

export interface NewFlowState {
  id: string;
  userId: string;
  authCode: string;
  codeChallenge: string;
  codeChallengeMethod: "s256" | "plain";
  providerType: string;
  authenticationMethod: string;
}

export async function insertFlowState(q: Queryable, t: AuthTables, flow: NewFlowState): Promise<void> {
  await q.query(sql`
    INSERT INTO ${t.flowStates} (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method)
    VALUES (${flow.id}, ${flow.userId}, ${flow.authCode}, ${flow.codeChallengeMethod}, ${flow.codeChallenge},
      ${flow.providerType}, ${flow.authenticationMethod})`);
}

/** The newest flow of this user for this authentication method (GoTrue's FindFlowStateByUserID). */
export async function latestFlowState(q: Queryable, t: AuthTables, userId: string, method: string): Promise<FlowStateRow | undefined> {
  const { rows } = await q.query<FlowStateRow>(sql`
    SELECT * FROM ${t.flowStates} WHERE user_id = ${userId} AND authentication_method = ${method}
    ORDER BY created_at DESC, id DESC LIMIT 1`);
  return rows[0];
}

export async function markAuthCodeIssued(q: Queryable, t: AuthTables, id: string): Promise<void> {
  await q.query(sql`UPDATE ${t.flowStates} SET auth_code_issued_at = now(), updated_at = now() WHERE id = ${id}`);
}

/** The flow an auth code belongs to, locked so one code is exchanged once. */
export async function flowStateByAuthCode(q: Queryable, t: AuthTables, authCode: string): Promise<FlowStateRow | undefined> {
  const { rows } = await q.query<FlowStateRow>(sql`SELECT * FROM ${t.flowStates} WHERE auth_code = ${authCode} LIMIT 1 FOR UPDATE`);
  return rows[0];
}

export async function deleteFlowState(q: Queryable, t: AuthTables, id: string): Promise<void> {
  await q.query(sql`DELETE FROM ${t.flowStates} WHERE id = ${id}`);
}

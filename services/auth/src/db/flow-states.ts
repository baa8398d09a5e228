/**
 * Queries on flow_state (GoTrue's internal/models/flow_state.go): one row per emailed PKCE flow
 * and one per external sign-in, PKCE or not. A row holds the client's code challenge and the
 * auth code it will exchange; it is deleted when the code is exchanged (or, for an implicit
 * external sign-in, when the session is issued).
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
  invite_token: string | null;
  referrer: string | null;
  oauth_client_state_id: string | null;
  linking_target_id: string | null;
  email_optional: boolean;
  created_at: Timestamp;
}

/** An external sign-in's flow: always a row, with the PKCE fields when the client sent a challenge. */
export interface NewOAuthFlow {
  id: string;
  providerType: string;
  pkce?: { authCode: string; codeChallenge: string; codeChallengeMethod: "s256" | "plain" } | undefined;
  inviteToken?: string | undefined;
  referrer: string;
  oauthClientStateId?: string | undefined;
  linkingTargetId?: string | undefined;
  emailOptional: boolean;
}

export async function insertOAuthFlow(q: Queryable, t: AuthTables, flow: NewOAuthFlow): Promise<void> {
  await q.query(sql`
    INSERT INTO ${t.flowStates} (id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method,
      invite_token, referrer, oauth_client_state_id, linking_target_id, email_optional)
    VALUES (${flow.id}, ${flow.pkce?.authCode ?? null}, ${flow.pkce?.codeChallengeMethod ?? null}, ${flow.pkce?.codeChallenge ?? null},
      ${flow.providerType}, 'oauth', ${flow.inviteToken ?? null}, ${flow.referrer}, ${flow.oauthClientStateId ?? null},
      ${flow.linkingTargetId ?? null}, ${flow.emailOptional})`);
}

/** The flow a `state` names; locked when `lock` (the PKCE callback claims it once). */
export async function flowStateById(q: Queryable, t: AuthTables, id: string, lock = false): Promise<FlowStateRow | undefined> {
  const { rows } = await q.query<FlowStateRow>(sql`SELECT * FROM ${t.flowStates} WHERE id = ${id}${lock ? sql` FOR UPDATE` : sql``}`);
  return rows[0];
}

/** A PKCE external sign-in reached the callback: the flow now names the user and holds the provider's tokens. */
export async function claimOAuthFlow(
  q: Queryable,
  t: AuthTables,
  id: string,
  claim: { userId: string; providerAccessToken: string; providerRefreshToken: string },
): Promise<void> {
  await q.query(sql`
    UPDATE ${t.flowStates} SET user_id = ${claim.userId}, provider_access_token = ${claim.providerAccessToken},
      provider_refresh_token = ${claim.providerRefreshToken}, auth_code_issued_at = now(), updated_at = now()
    WHERE id = ${id}`);
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

/**
 * Deletes up to 100 flows (and PKCE verifiers kept for providers) started more than a day ago,
 * skipping rows another instance holds: GoTrue's cleanup statements (internal/models/cleanup.go).
 */
export async function deleteStaleFlows(q: Queryable, t: AuthTables): Promise<void> {
  await q.query(sql`
    DELETE FROM ${t.flowStates} WHERE id IN (
      SELECT id FROM ${t.flowStates} WHERE created_at < now() - interval '24 hours' LIMIT 100 FOR UPDATE SKIP LOCKED)`);
  await q.query(sql`
    DELETE FROM ${t.oauthClientStates} WHERE id IN (
      SELECT id FROM ${t.oauthClientStates} WHERE created_at < now() - interval '24 hours' LIMIT 100 FOR UPDATE SKIP LOCKED)`);
}

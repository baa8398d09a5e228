/**
 * PKCE for the email flows (RFC 7636; GoTrue's internal/api/pkce.go and token.go). A request that
 * carries `code_challenge` and `code_challenge_method` starts a flow: a flow_state row with the
 * challenge and a random auth code, and the emailed token is stored as `pkce_<hash>`. Opening the
 * link (GET /verify) then redirects with `?code=<auth code>` instead of a session in the fragment,
 * and `POST /token?grant_type=pkce` exchanges the code and the verifier for the session, once,
 * within EXTERNAL_FLOW_STATE_EXPIRY_DURATION.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { Queryable } from "@platform/core";
import { deleteFlowState, flowStateByAuthCode, insertFlowState, latestFlowState, markAuthCodeIssued } from "../db/flow-states.js";
import { findUserById } from "../db/users.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { type AuthMethod, startSession, type TokenResponse } from "./sessions.js";
import { millis } from "./time.js";

export const PKCE_PREFIX = "pkce_";

export interface PkceParams {
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
}

/** The authentication methods an emailed PKCE flow can be for (flow_state.authentication_method). */
export type FlowMethod = Extract<AuthMethod, "email/signup" | "magiclink" | "recovery" | "email_change" | "invite">;

const CHALLENGE_CHARACTERS = /^[A-Za-z0-9._~-]+$/;

/** GoTrue's validatePKCEParams: both or neither of code_challenge and code_challenge_method, the challenge well-formed. */
export function checkPkceParams(input: PkceParams): void {
  const challenge = input.codeChallenge ?? "";
  const method = input.codeChallengeMethod ?? "";
  if ((challenge === "") !== (method === "")) throw errors.validation("PKCE flow requires code_challenge_method and code_challenge");
  if (challenge === "") return;
  if (challenge.length < 43 || challenge.length > 128) throw errors.validation("code challenge has to be between 43 and 128 characters");
  if (!CHALLENGE_CHARACTERS.test(challenge)) {
    throw errors.validation("code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes");
  }
}

export const isPkce = (input: PkceParams): boolean => (input.codeChallenge ?? "") !== "";

/** The stored form of an emailed token hash: `pkce_`-prefixed in a PKCE flow. */
export const withFlowPrefix = (hash: string, pkce: boolean): string => (pkce ? `${PKCE_PREFIX}${hash}` : hash);

export function challengeMethod(raw: string): "s256" | "plain" {
  const method = raw.toLowerCase();
  if (method === "s256" || method === "plain") return method;
  throw errors.validation(`code challenge method not supported: ${raw}`);
}

/** Starts a PKCE flow for the user (GoTrue's generateFlowState); a no-op without a challenge. */
export async function startFlow(q: Queryable, deps: AuthDeps, userId: string, method: FlowMethod, input: PkceParams): Promise<void> {
  if (!isPkce(input)) return;
  await insertFlowState(q, deps.tables, {
    id: randomUUID(),
    userId,
    authCode: randomUUID(),
    codeChallenge: input.codeChallenge as string,
    codeChallengeMethod: challengeMethod(input.codeChallengeMethod ?? ""),
    providerType: method,
    authenticationMethod: method,
  });
}

/** The /verify type a PKCE link was sent for, as the flow's authentication method (GoTrue's ParseAuthenticationMethod). */
export function flowMethodOfType(type: string): FlowMethod | undefined {
  if (type.endsWith("signup")) return "email/signup";
  const methods: Record<string, FlowMethod> = {
    magiclink: "magiclink",
    recovery: "recovery",
    email_change: "email_change",
    invite: "invite",
  };
  return methods[type];
}

/** GoTrue's issueAuthCode: the auth code of the user's newest flow for the method, stamped as issued now. */
export async function issueAuthCode(q: Queryable, deps: AuthDeps, userId: string, method: FlowMethod): Promise<string> {
  const flow = await latestFlowState(q, deps.tables, userId, method);
  if (!flow) throw errors.flowStateNotFound("No associated flow state found. No valid flow state found for user.");
  if (!flow.code_challenge || !flow.auth_code) {
    throw errors.flowStateNotFound("No associated flow state found. Flow state does not have an auth code (not a PKCE flow).");
  }
  await markAuthCodeIssued(q, deps.tables, flow.id);
  return flow.auth_code;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function verifierMatches(challenge: string, method: string, verifier: string): boolean {
  if (method === "plain") return sameText(challenge, verifier);
  return sameText(challenge, createHash("sha256").update(verifier).digest("base64url"));
}

/**
 * POST /token?grant_type=pkce: the session for an auth code and its verifier. Expired after the
 * flow lifetime (for a magic link counted from when the code was issued); the flow is deleted
 * with the exchange, so a code works once.
 */
export async function pkceGrant(
  deps: AuthDeps,
  meta: RequestMeta,
  input: { authCode?: string | undefined; codeVerifier?: string | undefined },
): Promise<TokenResponse> {
  const authCode = input.authCode ?? "";
  const verifier = input.codeVerifier ?? "";
  if (authCode === "" || verifier === "") {
    throw errors.validation("invalid request: both auth code and code verifier should be non-empty");
  }
  return deps.db.transaction(async (tx) => {
    const flow = await flowStateByAuthCode(tx, deps.tables, authCode);
    if (!flow?.user_id) throw errors.flowStateMissing();
    const started = flow.auth_code_issued_at && flow.authentication_method === "magiclink" ? flow.auth_code_issued_at : flow.created_at;
    if (millis(started) + deps.config.external.flowStateExpiryMs < Date.now()) throw errors.flowStateExpired();
    const user = await findUserById(tx, deps.tables, flow.user_id);
    if (!user) throw errors.flowStateMissing();
    if (!verifierMatches(flow.code_challenge ?? "", flow.code_challenge_method ?? "", verifier)) throw errors.badCodeVerifier();
    await audit(tx, deps, meta, user, "login", { provider_type: flow.provider_type });
    const session = await startSession(tx, deps, meta, user, flow.authentication_method as AuthMethod);
    await deleteFlowState(tx, deps.tables, flow.id);
    // An external sign-in hands over the provider's tokens too (omitted when empty, as GoTrue does).
    if (flow.provider_access_token) session.provider_token = flow.provider_access_token;
    if (flow.provider_refresh_token) session.provider_refresh_token = flow.provider_refresh_token;
    return session;
  });
}

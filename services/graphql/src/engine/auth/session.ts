/**
 * Who is asking (`getUserInfoWithExpTime` in Hasura's server/src-lib/Hasura/Server/Auth.hs): a
 * sent admin secret is checked first and wins; without one, the JWT (the token and secret
 * jwt-select.ts picks) or the webhook decides, else the unauthorized role, else access is
 * denied. With no admin secret configured everyone is admin, or the role they name in
 * `x-hasura-role`.
 */
import { timingSafeEqual } from "node:crypto";
import { adminSecretRequired, invalidAdminSecret, missingAuthorizationHeader, roleNotAllowed, roleNotInSession } from "../errors/index.js";
import { ADMIN_ROLE, type Session } from "../request/session.js";
import { extractClaims } from "./claims.js";
import { type AuthConfig, hashSecret, type JwtSecret } from "./config.js";
import { verifyJwt } from "./jwt.js";
import { selectJwt } from "./jwt-select.js";
import {
  ACCESS_KEY_HEADER,
  ADMIN_SECRET_HEADER,
  BACKEND_ONLY_HEADER,
  headerSessionVariables,
  parseBackendOnly,
  type RequestHeaders,
  ROLE_HEADER,
} from "./session-vars.js";
import { callAuthWebhook } from "./webhook.js";

export interface AuthRequest {
  /** Request headers with lower-case names. */
  headers: RequestHeaders;
  /** The GraphQL request body; sent to a POST-mode webhook. */
  body?: unknown;
}

export interface ResolvedSession {
  session: Session;
  /** When the credentials stop being valid (JWT `exp`, webhook Cache-Control/Expires); WebSockets close then. */
  expiresAt: Date | null;
}

function lowerCased(headers: RequestHeaders): RequestHeaders {
  const out: RequestHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === "" ? undefined : value);

/** Hasura's mkUserInfo: the role becomes `x-hasura-role`, the secrets never become variables. */
function makeSession(role: string, variables: Record<string, string>, isAdmin: boolean, useBackendOnly: boolean): Session {
  const vars: Record<string, string> = { ...variables, [ROLE_HEADER]: role };
  delete vars[ADMIN_SECRET_HEADER];
  delete vars[ACCESS_KEY_HEADER];
  return { role, variables: vars, isAdmin, useBackendOnly };
}

/** Admin, or the role named in `x-hasura-role`, with the x-hasura-* headers as variables. */
function fromHeaders(headers: RequestHeaders): Session {
  const role = nonEmpty(headers[ROLE_HEADER]) ?? ADMIN_ROLE;
  return makeSession(role, headerSessionVariables(headers), true, parseBackendOnly(headers[BACKEND_ONLY_HEADER]));
}

function unauthorized(role: string, headers: RequestHeaders): ResolvedSession {
  return { session: makeSession(role, headerSessionVariables(headers), false, false), expiresAt: null };
}

function secretMatches(sent: string, expected: Buffer): boolean {
  return timingSafeEqual(hashSecret(sent), expected);
}

async function fromJwt(secrets: JwtSecret[], headers: RequestHeaders, unauthorizedRole: string | null): Promise<ResolvedSession> {
  const selected = selectJwt(secrets, headers);
  if (selected === null) {
    if (unauthorizedRole) return unauthorized(unauthorizedRole, headers);
    throw missingAuthorizationHeader();
  }
  const { secret, token } = selected;
  const payload = await verifyJwt(token, secret.config, secret.jwks);
  const claims = extractClaims(payload, secret.config.claims);
  const role = nonEmpty(headers[ROLE_HEADER]) ?? claims.defaultRole;
  if (!claims.allowedRoles.includes(role)) throw roleNotAllowed();
  const expiresAt = typeof payload.exp === "number" ? new Date(payload.exp * 1000) : null;
  return { session: makeSession(role, claims.variables, false, false), expiresAt };
}

async function fromWebhook(
  auth: NonNullable<AuthConfig["webhook"]>,
  request: AuthRequest,
  headers: RequestHeaders,
): Promise<ResolvedSession> {
  const answer = await callAuthWebhook(auth, headers, request.body);
  const role = nonEmpty(answer.variables[ROLE_HEADER]);
  if (!role) throw roleNotInSession();
  return { session: makeSession(role, answer.variables, false, false), expiresAt: answer.expiresAt };
}

/** The session of a request and how long it lasts. */
export async function resolveSessionWithExpiry(request: AuthRequest, config: AuthConfig): Promise<ResolvedSession> {
  const headers = lowerCased(request.headers);
  if (config.adminSecretHash === null) return { session: fromHeaders(headers), expiresAt: null };
  const sent = headers[ADMIN_SECRET_HEADER] ?? headers[ACCESS_KEY_HEADER];
  if (sent !== undefined) {
    if (!secretMatches(sent, config.adminSecretHash)) {
      throw invalidAdminSecret();
    }
    return { session: fromHeaders(headers), expiresAt: null };
  }
  if (config.jwt) return fromJwt(config.jwt, headers, config.unauthorizedRole);
  if (config.webhook) return fromWebhook(config.webhook, request, headers);
  if (config.unauthorizedRole) return unauthorized(config.unauthorizedRole, headers);
  throw adminSecretRequired();
}

/** The session of a request (Hasura's precedence; errors are HasuraErrors with their status). */
export async function resolveSession(request: AuthRequest, config: AuthConfig): Promise<Session> {
  return (await resolveSessionWithExpiry(request, config)).session;
}

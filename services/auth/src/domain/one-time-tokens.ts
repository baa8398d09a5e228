/**
 * One-time codes as GoTrue makes them: a uniformly random n-digit code; what is stored is
 * hex(SHA-224(email-or-phone + code)), in the user's column for the flow and in one_time_tokens.
 */
import { createHash, randomInt } from "node:crypto";
import { type Queryable, sql } from "@platform/core";
import { type CodeClaim, claimCode, saveOneTimeToken } from "../db/one-time-tokens.js";
import type { OneTimeTokenType, UserRow } from "../db/rows.js";
import type { AuthTables } from "../db/tables.js";
import { findUserById, type UserPatch } from "../db/users.js";
import { type AuditAction, auditEntry, auditStatement } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { secondsUntil } from "./time.js";

export function generateOtp(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, "0");
}

export function tokenHash(identifier: string, otp: string): string {
  return createHash("sha224")
    .update(identifier + otp)
    .digest("hex");
}

/**
 * A new code for `identifier` (or the given one: a configured test OTP) and the hash that is
 * stored. In a PKCE flow the stored hash is `pkce_`-prefixed, and that prefixed form is what a
 * link carries.
 */
export function newCode(identifier: string, length: number, options: { pkce?: boolean; otp?: string } = {}): { otp: string; hash: string } {
  const otp = options.otp ?? generateOtp(length);
  const plain = tokenHash(identifier, otp);
  return { otp, hash: options.pkce ? `pkce_${plain}` : plain };
}

/** Creates a code for `identifier` (see {@link newCode}), records its hash under `type`, and returns both. */
export async function issueOneTimeToken(
  q: Queryable,
  tables: AuthTables,
  token: { userId: string; type: OneTimeTokenType; identifier: string; length: number; pkce?: boolean; otp?: string },
): Promise<{ otp: string; hash: string }> {
  const code = newCode(token.identifier, token.length, token);
  await saveOneTimeToken(q, tables, { userId: token.userId, type: token.type, tokenHash: code.hash, relatesTo: token.identifier });
  return code;
}

/** A code to send to a user, if the last one of its kind is old enough. */
export interface CodeRequest {
  type: OneTimeTokenType;
  /** The email or phone the code is for (what its hash covers). */
  identifier: string;
  length: number;
  pkce?: boolean;
  /** A fixed code (SMS_TEST_OTP) instead of a random one. */
  otp?: string;
  /** The user's columns for the new code's hash. */
  patch: (hash: string) => UserPatch;
  sentAt: CodeClaim["sentAt"];
  frequencyMs: number;
  /** An audit entry written with the code. */
  audit?: { meta: RequestMeta; action: AuditAction; traits?: Record<string, unknown> } | undefined;
}

export interface ClaimedCode {
  user: UserRow;
  otp: string;
  hash: string;
}

/**
 * Records a new code for the user in one statement (db claimCode), unless the last one of its
 * kind went out less than `frequencyMs` ago (by the database clock): then nothing is written and
 * the answer is undefined.
 */
export async function claimNewCode(q: Queryable, deps: AuthDeps, userId: string, request: CodeRequest): Promise<ClaimedCode | undefined> {
  const { otp, hash } = newCode(request.identifier, request.length, request);
  const { audit } = request;
  const entry = audit && auditStatement(deps, audit.meta, sql`claimed AS actor`, [auditEntry(audit.action, audit.traits)]);
  const user = await claimCode(q, deps.tables, {
    token: { userId, type: request.type, tokenHash: hash, relatesTo: request.identifier },
    patch: request.patch(hash),
    sentAt: request.sentAt,
    frequencyMs: request.frequencyMs,
    also: entry ? [entry] : [],
  });
  return user && { user, otp, hash };
}

/** Whole seconds before the user may be sent the next code of a kind (at least 1: it was just refused). */
export async function secondsBeforeNextCode(
  q: Queryable,
  deps: AuthDeps,
  userId: string,
  request: Pick<CodeRequest, "sentAt" | "frequencyMs">,
) {
  const user = await findUserById(q, deps.tables, userId);
  return Math.max(1, secondsUntil(user?.[request.sentAt] ?? null, request.frequencyMs));
}

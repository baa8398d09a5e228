/**
 * One-time codes as GoTrue makes them: a uniformly random n-digit code; what is stored is
 * hex(SHA-224(email-or-phone + code)), in the user's column for the flow and in one_time_tokens.
 */
import { createHash, randomInt } from "node:crypto";
import type { Queryable } from "@platform/core";
import { saveOneTimeToken } from "../db/one-time-tokens.js";
import type { OneTimeTokenType } from "../db/rows.js";
import type { AuthTables } from "../db/tables.js";

export function generateOtp(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, "0");
}

export function tokenHash(identifier: string, otp: string): string {
  return createHash("sha224")
    .update(identifier + otp)
    .digest("hex");
}

/**
 * Creates a code for `identifier` (or takes the given one: a configured test OTP), records its
 * hash under `type`, and returns both. In a PKCE flow the stored hash is `pkce_`-prefixed, and
 * that prefixed form is what a link carries.
 */
export async function issueOneTimeToken(
  q: Queryable,
  tables: AuthTables,
  token: { userId: string; type: OneTimeTokenType; identifier: string; length: number; pkce?: boolean; otp?: string },
): Promise<{ otp: string; hash: string }> {
  const otp = token.otp ?? generateOtp(token.length);
  const plain = tokenHash(token.identifier, otp);
  const hash = token.pkce ? `pkce_${plain}` : plain;
  await saveOneTimeToken(q, tables, { userId: token.userId, type: token.type, tokenHash: hash, relatesTo: token.identifier });
  return { otp, hash };
}

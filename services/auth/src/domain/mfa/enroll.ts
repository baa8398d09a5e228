/**
 * POST /factors (GoTrue's EnrollFactor, supabase/auth internal/api/mfa.go): a new unverified TOTP
 * or phone factor. The user's row is locked while the limits are checked, so concurrent
 * enrolments cannot pass MFA_MAX_ENROLLED_FACTORS together.
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import { deleteExpiredFactors, deleteUnverifiedFactors, factorsOfUser, insertFactor, type NewFactor } from "../../db/factors.js";
import type { FactorRow, SessionRow, UserRow } from "../../db/rows.js";
import { findUserById } from "../../db/users.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import type { Authenticated } from "../current-user.js";
import { errors } from "../errors.js";
import { normalizePhone } from "../identifiers.js";
import { newTotpKey } from "./totp.js";

export interface EnrollInput {
  factorType?: string | undefined;
  friendlyName?: string | undefined;
  issuer?: string | undefined;
  phone?: string | undefined;
}

export interface EnrollAnswer {
  id: string;
  type: "totp" | "phone";
  friendly_name: string;
  totp?: { qr_code: string; secret: string; uri: string };
  phone?: string;
}

export async function enrollFactor(deps: AuthDeps, meta: RequestMeta, auth: Authenticated, input: EnrollInput): Promise<EnrollAnswer> {
  const { mfa } = deps.config;
  const session = sessionOf(auth);
  const friendlyName = input.friendlyName ?? "";
  if (input.factorType === "phone") {
    if (!mfa.phoneEnroll) throw errors.mfaEnrollDisabled("Phone");
    if (!input.phone) throw errors.factorPhoneRequired();
    const phone = normalizePhone(input.phone);
    const factor = await saveFactor(deps, meta, auth.user, session, { type: "phone", friendlyName, phone });
    return { id: factor.id, type: "phone", friendly_name: friendlyName, phone: input.phone };
  }
  if (input.factorType === "totp") {
    if (!mfa.totpEnroll) throw errors.mfaEnrollDisabled("TOTP");
    const accountName = auth.user.email || auth.user.phone;
    if (!accountName) throw errors.totpNeedsAccountName();
    const key = await newTotpKey(input.issuer || new URL(deps.config.siteUrl).host, accountName);
    const factor = await saveFactor(deps, meta, auth.user, session, { type: "totp", friendlyName, secret: key.secret });
    return { id: factor.id, type: "totp", friendly_name: friendlyName, totp: { qr_code: key.qrCode, secret: key.secret, uri: key.uri } };
  }
  if (input.factorType === "webauthn") throw errors.mfaEnrollDisabled("WebAuthn");
  throw errors.factorTypeInvalid();
}

/** The session a factor operation acts for; tokens without one cannot manage factors. */
export function sessionOf(auth: Authenticated): SessionRow {
  if (!auth.session) throw errors.sessionFromTokenNotFound();
  return auth.session;
}

async function saveFactor(
  deps: AuthDeps,
  meta: RequestMeta,
  user: UserRow,
  session: SessionRow,
  factor: Omit<NewFactor, "id" | "userId">,
): Promise<FactorRow> {
  const t = deps.tables;
  return deps.db.transaction(async (tx) => {
    await findUserById(tx, t, user.id, { lock: true });
    await deleteExpiredFactors(tx, t, user.id, deps.config.mfa.factorExpiryMs);
    let factors = await factorsOfUser(tx, t, user.id);
    if (factor.phone !== undefined) factors = await replaceUnverifiedPhone(tx, deps, user.id, factors, factor.phone);
    checkLimits(deps, factors, factor.friendlyName, session);
    const saved = await insertFactor(tx, t, { ...factor, id: randomUUID(), userId: user.id });
    await audit(tx, deps, meta, user, "factor_in_progress", { factor_id: saved.id, factor_type: saved.factor_type });
    return saved;
  });
}

/**
 * GoTrue: a verified factor for the number refuses the enrolment; unverified ones are replaced.
 * Answers the user's factors without the ones removed.
 */
async function replaceUnverifiedPhone(tx: Queryable, deps: AuthDeps, userId: string, factors: FactorRow[], phone: string) {
  const samePhone = (f: FactorRow) => f.factor_type === "phone" && f.phone === phone;
  if (factors.some((f) => samePhone(f) && f.status === "verified")) throw errors.verifiedPhoneFactorExists();
  await deleteUnverifiedFactors(tx, deps.tables, userId, "phone", phone);
  return factors.filter((f) => !samePhone(f));
}

/** GoTrue's validateFactors: the name is free, the limits are not reached, aal2 once a factor is verified. */
function checkLimits(deps: AuthDeps, factors: readonly FactorRow[], friendlyName: string, session: SessionRow) {
  const { maxEnrolledFactors, maxVerifiedFactors } = deps.config.mfa;
  if (factors.some((f) => (f.friendly_name ?? "") === friendlyName)) throw errors.factorNameConflict(friendlyName);
  const verified = factors.filter((f) => f.status === "verified").length;
  if (factors.length >= maxEnrolledFactors || verified >= maxVerifiedFactors) throw errors.tooManyFactors();
  if (verified > 0 && session.aal !== "aal2") throw errors.enrollNeedsAal2();
}

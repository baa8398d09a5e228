/**
 * Removing and changing factors: DELETE /factors/{id} (GoTrue's UnenrollFactor) and the admin
 * API's GET /admin/users/{id}/factors, PUT and DELETE /admin/users/{id}/factors/{factor_id}
 * (supabase/auth internal/api/mfa.go and admin.go). A removed factor's sessions lose its amr
 * claim and go back to aal1 (DowngradeSessionsToAAL1).
 */
import type { Queryable } from "@platform/core";
import { deleteFactor, factorsOfUser, findOwnedFactor, updateFactorDetails } from "../../db/factors.js";
import type { FactorRow, UserRow } from "../../db/rows.js";
import { downgradeFactorSessions } from "../../db/sessions.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import type { Authenticated } from "../current-user.js";
import { errors } from "../errors.js";
import { isUuid, normalizePhone } from "../identifiers.js";
import { sendNotices } from "../notifications.js";
import { factorJson } from "../user-json.js";
import { sessionOf } from "./enroll.js";

const AMR_METHODS: Record<FactorRow["factor_type"], string> = { totp: "totp", phone: "mfa/phone", webauthn: "mfa/webauthn" };

/** The user's factor `id` (GoTrue's loadFactor): 404 when the id is not a UUID or not theirs. */
export async function ownedFactor(q: Queryable, deps: AuthDeps, userId: string, id: string): Promise<FactorRow> {
  if (!isUuid(id)) throw errors.factorIdNotUuid();
  const factor = await findOwnedFactor(q, deps.tables, userId, id);
  if (!factor) throw errors.factorNotFound();
  return factor;
}

export async function unenrollFactor(deps: AuthDeps, meta: RequestMeta, auth: Authenticated, factor: FactorRow): Promise<{ id: string }> {
  const session = sessionOf(auth);
  if (factor.status === "verified" && session.aal !== "aal2") throw errors.unenrollNeedsAal2();
  const removed = await removeFactor(deps, auth.user, factor, (tx) =>
    audit(tx, deps, meta, auth.user, "factor_unenrolled", {
      factor_id: factor.id,
      factor_status: factor.status,
      session_id: session.id,
    }),
  );
  if (removed) {
    await sendNotices(deps, [{ kind: "mfa_factor_unenrolled_notification", user: auth.user, factorType: factor.factor_type }]);
  }
  return { id: factor.id };
}

/** Deletes the factor and downgrades its sessions; false when a concurrent request deleted it first. */
async function removeFactor(deps: AuthDeps, user: UserRow, factor: FactorRow, record: (tx: Queryable) => Promise<void>) {
  return deps.db.transaction(async (tx) => {
    const deleted = await deleteFactor(tx, deps.tables, factor.id);
    if (!deleted) return false;
    await record(tx);
    await downgradeFactorSessions(tx, deps.tables, user.id, factor.id, AMR_METHODS[factor.factor_type]);
    return true;
  });
}

export async function adminListFactors(deps: AuthDeps, user: UserRow) {
  return (await factorsOfUser(deps.db, deps.tables, user.id)).map(factorJson);
}

export async function adminDeleteFactor(deps: AuthDeps, meta: RequestMeta, admin: AdminActor, user: UserRow, factorId: string) {
  const factor = await ownedFactor(deps.db, deps, user.id, factorId);
  await removeFactor(deps, user, factor, (tx) =>
    audit(tx, deps, meta, admin, "factor_deleted", { user_id: user.id, factor_id: factor.id }),
  );
  return factorJson(factor);
}

export interface FactorChange {
  friendlyName?: string | undefined;
  phone?: string | undefined;
}

type AdminActor = Pick<UserRow, "id" | "email" | "phone">;

export async function adminUpdateFactor(
  deps: AuthDeps,
  meta: RequestMeta,
  admin: AdminActor,
  user: UserRow,
  factorId: string,
  change: FactorChange,
) {
  const factor = await ownedFactor(deps.db, deps, user.id, factorId);
  const phone = change.phone && factor.factor_type === "phone" ? normalizePhone(change.phone) : undefined;
  const friendlyName = change.friendlyName || undefined;
  const updated = await deps.db.transaction(async (tx) => {
    const others = (await factorsOfUser(tx, deps.tables, user.id)).filter((f) => f.id !== factor.id);
    if (friendlyName !== undefined && others.some((f) => f.friendly_name === friendlyName)) throw errors.factorNameConflict(friendlyName);
    if (phone !== undefined && others.some((f) => f.phone === phone)) throw errors.phoneFactorExists();
    const saved = await updateFactorDetails(tx, deps.tables, factor.id, { friendlyName, phone });
    await audit(tx, deps, meta, admin, "factor_updated", { user_id: user.id, factor_id: factor.id, factor_type: factor.factor_type });
    return saved;
  });
  return factorJson(updated);
}

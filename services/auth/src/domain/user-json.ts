/** The user and identity objects as GoTrue serialises them (JSON tags in internal/models/user.go and identity.go). */
import type { Queryable } from "@platform/core";
import { factorsOfUser } from "../db/factors.js";
import { identitiesOfUser } from "../db/identities.js";
import type { FactorRow, IdentityRow, UserRow } from "../db/rows.js";
import type { AuthTables } from "../db/tables.js";
import { rfc3339, rfc3339OrNull } from "./time.js";

export type UserJson = Record<string, unknown>;

export function identityJson(identity: IdentityRow): Record<string, unknown> {
  return {
    identity_id: identity.id,
    id: identity.provider_id,
    user_id: identity.user_id,
    identity_data: identity.identity_data,
    provider: identity.provider,
    last_sign_in_at: rfc3339OrNull(identity.last_sign_in_at) ?? undefined,
    created_at: rfc3339(identity.created_at),
    updated_at: rfc3339(identity.updated_at),
    email: identity.email ?? undefined,
  };
}

/** A factor as GoTrue's models.Factor serialises it (its secret never leaves the service). */
export function factorJson(factor: FactorRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: factor.id,
    created_at: rfc3339(factor.created_at),
    updated_at: rfc3339(factor.updated_at),
    status: factor.status,
  };
  if (factor.friendly_name) out.friendly_name = factor.friendly_name;
  out.factor_type = factor.factor_type;
  out.phone = factor.phone ?? "";
  out.last_challenged_at = rfc3339OrNull(factor.last_challenged_at);
  return out;
}

/** Adds `key: value` only when the value is set (GoTrue's omitempty). */
function optional(out: UserJson, key: string, value: string | null | undefined) {
  if (value) out[key] = value;
}

/** `factors` is left out when there are none (GoTrue's omitempty). */
export function userJson(user: UserRow, identities: IdentityRow[], factors: readonly FactorRow[] = []): UserJson {
  const out: UserJson = { id: user.id, aud: user.aud ?? "", role: user.role ?? "", email: user.email ?? "" };
  optional(out, "email_confirmed_at", rfc3339OrNull(user.email_confirmed_at));
  out.phone = user.phone ?? "";
  optional(out, "phone_confirmed_at", rfc3339OrNull(user.phone_confirmed_at));
  optional(out, "confirmation_sent_at", rfc3339OrNull(user.confirmation_sent_at));
  optional(out, "confirmed_at", rfc3339OrNull(user.confirmed_at));
  optional(out, "invited_at", rfc3339OrNull(user.invited_at));
  optional(out, "recovery_sent_at", rfc3339OrNull(user.recovery_sent_at));
  optional(out, "new_email", user.email_change);
  optional(out, "email_change_sent_at", rfc3339OrNull(user.email_change_sent_at));
  optional(out, "new_phone", user.phone_change);
  optional(out, "phone_change_sent_at", rfc3339OrNull(user.phone_change_sent_at));
  optional(out, "reauthentication_sent_at", rfc3339OrNull(user.reauthentication_sent_at));
  optional(out, "last_sign_in_at", rfc3339OrNull(user.last_sign_in_at));
  out.app_metadata = user.raw_app_meta_data ?? {};
  out.user_metadata = user.raw_user_meta_data ?? {};
  out.identities = identities.map(identityJson);
  if (factors.length > 0) out.factors = factors.map(factorJson);
  optional(out, "banned_until", rfc3339OrNull(user.banned_until));
  out.created_at = rfc3339(user.created_at);
  out.updated_at = rfc3339(user.updated_at);
  optional(out, "deleted_at", rfc3339OrNull(user.deleted_at));
  out.is_anonymous = user.is_anonymous;
  return out;
}

/** The user's JSON with its identities and factors read from the database. */
export async function loadUserJson(q: Queryable, t: AuthTables, user: UserRow): Promise<UserJson> {
  const [identities, factors] = await Promise.all([identitiesOfUser(q, t, user.id), factorsOfUser(q, t, user.id)]);
  return userJson(user, identities, factors);
}

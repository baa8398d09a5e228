/** The user and identity objects as GoTrue serialises them (JSON tags in internal/models/user.go and identity.go). */
import type { IdentityRow, UserRow } from "../db/rows.js";
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

/** Adds `key: value` only when the value is set (GoTrue's omitempty). */
function optional(out: UserJson, key: string, value: string | null | undefined) {
  if (value) out[key] = value;
}

export function userJson(user: UserRow, identities: IdentityRow[]): UserJson {
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
  optional(out, "banned_until", rfc3339OrNull(user.banned_until));
  out.created_at = rfc3339(user.created_at);
  out.updated_at = rfc3339(user.updated_at);
  optional(out, "deleted_at", rfc3339OrNull(user.deleted_at));
  out.is_anonymous = user.is_anonymous;
  return out;
}

/**
 * Account changes shared by the admin API and /verify, as GoTrue's user model makes them:
 * confirming an email or phone, upserting the email / phone identity, and recomputing
 * app_metadata.provider(s) from the identities.
 */
import type { Queryable } from "@platform/core";
import { identitiesOfUser, insertIdentity, updateIdentityData } from "../db/identities.js";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { Json, UserRow } from "../db/rows.js";
import { identityOfUser } from "../db/user-directory.js";
import { type UserPatch, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { mergeMetadata } from "./user-update.js";

/** GoTrue's User.Confirm: confirms the email, marks user_metadata.email_verified and drops every pending code. */
export async function confirmEmail(q: Queryable, deps: AuthDeps, user: UserRow): Promise<UserRow> {
  const updated = await updateUser(q, deps.tables, user.id, {
    confirmation_token: "",
    email_confirmed_at: NOW,
    raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, { email_verified: true }),
  });
  await deleteOneTimeTokens(q, deps.tables, user.id);
  return updated;
}

/** GoTrue's User.ConfirmPhone. */
export async function confirmPhone(q: Queryable, deps: AuthDeps, user: UserRow): Promise<UserRow> {
  const updated = await updateUser(q, deps.tables, user.id, { confirmation_token: "", phone_confirmed_at: NOW });
  await deleteOneTimeTokens(q, deps.tables, user.id);
  return updated;
}

/** Merges `data` into the user's identity of `provider`, or creates that identity with `created` as its data. */
export async function upsertIdentity(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  provider: "email" | "phone",
  data: Json,
  created: Json,
): Promise<void> {
  const identity = await identityOfUser(q, deps.tables, user.id, provider);
  if (identity) await updateIdentityData(q, deps.tables, identity.id, mergeMetadata(identity.identity_data ?? {}, data));
  else await insertIdentity(q, deps.tables, { userId: user.id, provider, providerId: user.id, identityData: created });
}

/** The data GoTrue gives a new email or phone identity (provider.Claims of sub, email/phone and the verified flags). */
export function contactIdentityData(userId: string, contact: { email?: string; phone?: string }, verified: boolean): Json {
  const data: Json = { sub: userId };
  if (contact.email) data.email = contact.email;
  data.email_verified = contact.email !== undefined && verified;
  if (contact.phone) data.phone = contact.phone;
  data.phone_verified = contact.phone !== undefined && verified;
  return data;
}

/** GoTrue's UpdateAppMetaDataProviders: `providers` lists the identities' providers (oldest first), `provider` the first. */
export async function refreshProviders(q: Queryable, deps: AuthDeps, user: UserRow, alsoSet: UserPatch = {}): Promise<UserRow> {
  const providers = [...new Set((await identitiesOfUser(q, deps.tables, user.id)).map((identity) => identity.provider))];
  const update: Json = { providers };
  if (providers.length > 0) update.provider = providers[0];
  return updateUser(q, deps.tables, user.id, { ...alsoSet, raw_app_meta_data: mergeMetadata(user.raw_app_meta_data ?? {}, update) });
}

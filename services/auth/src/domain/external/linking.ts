/**
 * Manual identity linking and unlinking (GoTrue's internal/api/identity.go): a signed-in user
 * adds a provider identity through the same redirect flow, and removes one of several.
 */
import type { Queryable } from "@platform/core";
import { isUniqueViolation } from "../../db/errors.js";
import { deleteIdentity, findIdentity, identitiesOfUser, insertIdentity } from "../../db/identities.js";
import type { IdentityRow, UserRow } from "../../db/rows.js";
import { findUserByEmail, updateUser } from "../../db/users.js";
import { confirmEmail, refreshProviders } from "../account-changes.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import { sendEmailCode } from "../email-codes.js";
import { errors } from "../errors.js";
import type { AccountOutcome, ExternalUser } from "./accounts.js";
import { identityData } from "./accounts.js";

const identityEmail = (identity: IdentityRow): string =>
  typeof identity.identity_data?.email === "string" ? identity.identity_data.email : "";
const identityVerified = (identity: IdentityRow): boolean => identity.identity_data?.email_verified === true;

/**
 * User.UpdateUserEmailFromIdentities: when no identity carries the user's email any more, the
 * email of the best identity (verified first, then oldest) that no other user holds; unverified
 * ones leave the user unconfirmed.
 */
async function emailFromIdentities(q: Queryable, deps: AuthDeps, user: UserRow): Promise<UserRow> {
  const identities = await identitiesOfUser(q, deps.tables, user.id);
  const current = (user.email ?? "").toLowerCase();
  if (identities.some((identity) => identityEmail(identity).toLowerCase() === current)) return user;
  const rank = (identity: IdentityRow) => (identityEmail(identity) === "" ? 2 : identityVerified(identity) ? 0 : 1);
  const ordered = [...identities].sort((a, b) => rank(a) - rank(b));
  for (const identity of ordered) {
    const email = identityEmail(identity).toLowerCase();
    const holder = email === "" ? undefined : await findUserByEmail(q, deps.tables, email);
    if (holder && holder.id !== user.id) continue;
    const confirmed = email !== "" && (identityVerified(identity) || deps.config.mailer.autoconfirm);
    return updateUser(q, deps.tables, user.id, {
      email: email === "" ? null : email,
      ...(confirmed ? {} : { email_confirmed_at: null }),
    });
  }
  throw errors.emailConflictIdentityNotDeletable();
}

/** The callback of a manual link: the identity joins `target` (GoTrue's linkIdentityToUser). */
export async function linkIdentityToUser(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  target: UserRow,
  external: ExternalUser,
): Promise<AccountOutcome> {
  const existing = await findIdentity(q, deps.tables, external.claims.sub, external.provider);
  if (existing) throw errors.identityAlreadyLinked(existing.user_id !== target.id);
  const identity = await insertIdentity(q, deps.tables, {
    userId: target.id,
    provider: external.provider,
    providerId: external.claims.sub,
    identityData: identityData(external),
  });
  await audit(q, deps, meta, target, "identity_linked", {
    identity_id: identity.id,
    provider: identity.provider,
    provider_id: identity.provider_id,
  });
  let user = target;
  if ((user.email ?? "") === "") {
    try {
      user = await emailFromIdentities(q, deps, user);
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.linkedEmailExists();
      throw error;
    }
    if (!external.emailVerified) {
      await sendEmailCode(q, deps, user, "confirmation", {});
      return { committedError: errors.linkedEmailNotConfirmed(external.provider) };
    }
    user = await confirmEmail(q, deps, user);
    if (user.is_anonymous) user = await updateUser(q, deps.tables, user.id, { is_anonymous: false });
  }
  return { user: await refreshProviders(q, deps, user) };
}

/** DELETE /user/identities/{id}: answers the removed identity's provider, for the notification. */
export async function unlinkIdentity(
  deps: AuthDeps,
  meta: RequestMeta,
  user: UserRow,
  identityId: string,
): Promise<{ user: UserRow; provider: string }> {
  return deps.db.transaction(async (tx) => {
    const identities = await identitiesOfUser(tx, deps.tables, user.id);
    if (identities.length <= 1) throw errors.singleIdentityNotDeletable();
    const identity = identities.find((i) => i.id === identityId);
    if (!identity) throw errors.identityNotFound();
    await audit(tx, deps, meta, user, "identity_unlinked", {
      identity_id: identity.id,
      provider: identity.provider,
      provider_id: identity.provider_id,
    });
    await deleteIdentity(tx, deps.tables, identity.id);
    let updated = user;
    if (identity.provider === "phone") {
      updated = await updateUser(tx, deps.tables, user.id, { phone: null, phone_confirmed_at: null });
    } else {
      try {
        updated = await emailFromIdentities(tx, deps, user);
      } catch (error) {
        if (isUniqueViolation(error)) throw errors.emailConflictIdentityNotDeletable();
        throw error;
      }
    }
    return { user: await refreshProviders(tx, deps, updated), provider: identity.provider };
  });
}

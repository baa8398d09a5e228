/**
 * Who a provider's user is here (GoTrue's createAccountFromExternalIdentity, supabase/auth
 * internal/api/external.go, and DetermineAccountLinking, internal/models/linking.go):
 * - an identity of this provider with this subject: that account, its identity data refreshed;
 * - else, only by an address the provider says is verified (or with MAILER_AUTOCONFIRM): the one
 *   account holding it, as a user's email or another identity's, gets the identity linked;
 *   several accounts are refused;
 * - else a new account (without the address when another account holds it).
 * An account that is not confirmed loses its other identities and its password when a provider
 * identity arrives (so nobody who registered the address first keeps a way in), and is confirmed
 * when the provider verified the address; otherwise a confirmation is sent and the sign-in refused
 * with provider_email_needs_verification, the account and the mail kept (GoTrue commits them).
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import {
  deleteIdentity,
  findIdentity,
  identitiesOfUser,
  identitiesWithEmails,
  insertIdentity,
  touchIdentity,
} from "../../db/identities.js";
import type { IdentityRow, UserRow } from "../../db/rows.js";
import { findUserByConfirmationToken, findUserById, insertUser, updateUser, usersWithEmails } from "../../db/users.js";
import { confirmEmail, refreshProviders } from "../account-changes.js";
import { audit } from "../audit.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import { sendEmailCode } from "../email-codes.js";
import { type AuthError, errors } from "../errors.js";
import { mergeMetadata } from "../user-update.js";
import type { Claims, ProviderEmail } from "./types.js";

export interface ExternalUser {
  provider: string;
  claims: Claims;
  emails: ProviderEmail[];
  /** The address the callback chose (the primary one, else the last). */
  email: string;
  emailVerified: boolean;
  emailOptional: boolean;
}

/** The outcome: the user to sign in, or an error to answer after the transaction commits. */
export type AccountOutcome = { user: UserRow } | { committedError: AuthError };

type Decision =
  | { kind: "exists"; user: UserRow; identity: IdentityRow; candidate: string }
  | { kind: "link"; user: UserRow; candidate: string }
  | { kind: "create"; candidate: string }
  | { kind: "multiple" };

async function decide(q: Queryable, deps: AuthDeps, external: ExternalUser): Promise<Decision> {
  const { tables } = deps;
  const autoconfirm = deps.config.mailer.autoconfirm;
  const primary = external.emails.find((e) => e.primary);
  const candidate = primary?.email.toLowerCase() ?? "";
  const verified = [...new Set(external.emails.filter((e) => e.verified || autoconfirm).map((e) => e.email.toLowerCase()))];
  const identity = await findIdentity(q, tables, external.claims.sub, external.provider);
  if (identity) {
    const user = await findUserById(q, tables, identity.user_id, { lock: true });
    if (user) return { kind: "exists", user, identity, candidate: user.email ?? "" };
  }
  if (verified.length === 0) {
    const taken = candidate !== "" && (await usersWithEmails(q, tables, [candidate])).length > 0;
    return { kind: "create", candidate: taken ? "" : candidate };
  }
  // Every provider shares GoTrue's default linking domain here (sso:* providers do not exist).
  const identities = await identitiesWithEmails(q, tables, verified);
  const users = await usersWithEmails(q, tables, verified);
  if (identities.length === 0) {
    if (users.length === 1) return { kind: "link", user: users[0] as UserRow, candidate };
    if (users.length > 1) return { kind: "multiple" };
    return { kind: "create", candidate };
  }
  const owner = (identities[0] as IdentityRow).user_id;
  if (identities.some((i) => i.user_id !== owner)) return { kind: "multiple" };
  const user = await findUserById(q, tables, owner, { lock: true });
  if (!user) return { kind: "create", candidate };
  return { kind: "link", user, candidate };
}

/** The identity data GoTrue stores: the claims with the chosen address (lower-cased) and whether it is verified. */
export function identityData(external: ExternalUser): Claims {
  const data: Claims = { ...external.claims, email_verified: external.emailVerified };
  if (external.email) data.email = external.email.toLowerCase();
  return data;
}

/** User.RemoveUnconfirmedIdentities: only `keep` stays; a password goes when `keep` is a provider's. */
async function removeUnconfirmedIdentities(q: Queryable, deps: AuthDeps, user: UserRow, keep: IdentityRow): Promise<UserRow> {
  let updated = user;
  if (keep.provider !== "email" && keep.provider !== "phone") {
    updated = await updateUser(q, deps.tables, user.id, { encrypted_password: null });
  }
  updated = await updateUser(q, deps.tables, user.id, {
    raw_user_meta_data: mergeMetadata(updated.raw_user_meta_data ?? {}, keep.identity_data ?? {}),
  });
  for (const identity of await identitiesOfUser(q, deps.tables, user.id)) {
    if (identity.id !== keep.id) await deleteIdentity(q, deps.tables, identity.id);
  }
  return refreshProviders(q, deps, updated);
}

const isBanned = (user: UserRow) => user.banned_until !== null && Date.parse(user.banned_until) > Date.now();

/** Signs in (or up) the provider's user, inside the caller's transaction. */
export async function accountForExternalUser(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  external: ExternalUser,
): Promise<AccountOutcome> {
  const { tables, config } = deps;
  const data = identityData(external);
  const decision = await decide(q, deps, external);
  let user: UserRow;
  let identity: IdentityRow;
  let candidate: string;
  // GoTrue's CandidateEmail.Verified: whether the provider verified its primary address.
  const candidateVerified = external.emails.some((e) => e.primary && e.verified);
  switch (decision.kind) {
    case "multiple":
      throw errors.multipleAccounts();
    case "exists":
      ({ user, identity, candidate } = decision);
      await touchIdentity(q, tables, identity.id, data);
      identity = { ...identity, identity_data: data };
      user = await refreshProviders(q, deps, user, { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, data) });
      break;
    case "link":
      ({ user, candidate } = decision);
      identity = await insertIdentity(q, tables, {
        userId: user.id,
        provider: external.provider,
        providerId: external.claims.sub,
        identityData: data,
      });
      user = await updateUser(q, tables, user.id, { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, data) });
      user = await refreshProviders(q, deps, user);
      await audit(q, deps, meta, user, "identity_linked", {
        identity_id: identity.id,
        provider: identity.provider,
        provider_id: identity.provider_id,
      });
      break;
    case "create": {
      if (config.disableSignup) throw errors.signupDisabled();
      ({ candidate } = decision);
      user = await insertUser(q, tables, {
        id: randomUUID(),
        aud: meta.audience ?? config.jwt.aud,
        role: config.jwt.defaultGroupName,
        email: candidate === "" ? null : candidate,
        phone: null,
        encryptedPassword: null,
        appMetadata: { provider: external.provider, providers: [external.provider] },
        userMetadata: data,
        isAnonymous: false,
        emailConfirmed: false,
        phoneConfirmed: false,
      });
      identity = await insertIdentity(q, tables, {
        userId: user.id,
        provider: external.provider,
        providerId: external.claims.sub,
        identityData: data,
      });
      break;
    }
  }
  if (isBanned(user)) throw errors.externalUserBanned();
  const hasEmails = !(external.emailOptional && candidate === "");
  if (hasEmails && user.email_confirmed_at === null) {
    user = await removeUnconfirmedIdentities(q, deps, user, identity);
    if (candidateVerified || config.mailer.autoconfirm) {
      await audit(q, deps, meta, user, "user_signedup", { provider: external.provider });
      user = await confirmEmail(q, deps, user);
    } else {
      const sent = candidate !== "" && user.email !== null;
      if (sent) user = await sendEmailCode(q, deps, user, "confirmation", {});
      if (!config.external.allowUnverifiedEmailSignIns) {
        return { committedError: errors.providerEmailNeedsVerification(external.provider, sent) };
      }
    }
  } else {
    await audit(q, deps, meta, user, "login", { provider: external.provider });
  }
  return { user };
}

/**
 * An invited user signs up through a provider (GoTrue's processInvite): the provider must know
 * the invited address; the identity joins the invited account, which is confirmed, and loses any
 * other unconfirmed way in.
 */
export async function acceptInvite(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  token: string,
  external: ExternalUser,
): Promise<AccountOutcome> {
  let user = await findUserByConfirmationToken(q, deps.tables, token, true);
  if (!user) throw errors.inviteNotFound();
  const invited = user.email ?? "";
  if (!external.emails.some((e) => e.email === invited)) throw errors.inviteEmailMismatch();
  const data = identityData(external);
  const identity = await insertIdentity(q, deps.tables, {
    userId: user.id,
    provider: external.provider,
    providerId: external.claims.sub,
    identityData: data,
  });
  user = await updateUser(q, deps.tables, user.id, {
    raw_app_meta_data: mergeMetadata(user.raw_app_meta_data ?? {}, { provider: external.provider }),
    raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, data),
  });
  user = await refreshProviders(q, deps, user);
  await audit(q, deps, meta, user, "invite_accepted", { provider: external.provider });
  user = await removeUnconfirmedIdentities(q, deps, user, identity);
  return { user: await confirmEmail(q, deps, user) };
}

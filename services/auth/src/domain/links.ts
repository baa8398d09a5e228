/**
 * POST /admin/generate_link and POST /invite (GoTrue's mail.go and invite.go). Both issue a code
 * and store hex(SHA-224(email + code)) in the user's column for the flow and in one_time_tokens;
 * the link carries that hash (`/verify?token=<hash>&type=<type>&redirect_to=<url>`).
 * generate_link sends nothing and answers the link, the code and the hash next to the user;
 * an invite goes to the messenger, inside the transaction that stored it (a failed send undoes it).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import { insertIdentity } from "../db/identities.js";
import { saveOneTimeToken } from "../db/one-time-tokens.js";
import type { OneTimeTokenType, UserRow } from "../db/rows.js";
import { findUserByEmailInAudience } from "../db/user-directory.js";
import { emailTaken, insertUser, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import { contactIdentityData } from "./account-changes.js";
import type { AdminActor } from "./admin-auth.js";
import { adminAudience } from "./admin-users.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { normalizeEmail } from "./identifiers.js";
import { generateOtp, tokenHash } from "./one-time-tokens.js";
import { checkNewPassword } from "./passwords.js";
import { isRedirectUrlValid, referrer } from "./redirects.js";
import { verificationLink } from "./url-encoding.js";
import { loadUserJson, type UserJson } from "./user-json.js";
import { mergeMetadata } from "./user-update.js";

export const LINK_TYPES = ["signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new"] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export interface GenerateLinkInput {
  type?: string | undefined;
  email?: string | undefined;
  newEmail?: string | undefined;
  password?: string | undefined;
  data?: Record<string, unknown> | undefined;
  redirectTo?: string | undefined;
}

/** Where the request asked to go: the `redirect_to` query parameter (or header), and the Referer header. */
export interface RedirectHints {
  redirectTo?: string | undefined;
  referer?: string | undefined;
}

export type GenerateLinkResponse = UserJson & {
  action_link: string;
  email_otp: string;
  hashed_token: string;
  verification_type: string;
  redirect_to: string;
};

/** API_EXTERNAL_URL resolved against MAILER_URLPATHS_<kind>, with GoTrue's query (token, type, redirect_to). */
export function actionLink(deps: AuthDeps, path: string, token: string, type: string, redirectTo: string): string {
  return verificationLink(deps.config.api.externalUrl, path, token, type, redirectTo);
}

const DEFAULT_APP_METADATA = { provider: "email", providers: ["email"] };

/** A new unconfirmed email user, as GoTrue's signup model makes it (role JWT_DEFAULT_GROUP_NAME), with its email identity. */
async function newEmailUser(
  q: Queryable,
  deps: AuthDeps,
  email: string,
  aud: string,
  data: Record<string, unknown> | undefined,
  encryptedPassword: string | null,
): Promise<UserRow> {
  const id = randomUUID();
  const user = await insertUser(q, deps.tables, {
    id,
    aud,
    role: deps.config.jwt.defaultGroupName,
    email,
    phone: null,
    encryptedPassword,
    appMetadata: DEFAULT_APP_METADATA,
    userMetadata: data ?? {},
    isAnonymous: false,
    emailConfirmed: false,
    phoneConfirmed: false,
  });
  await insertIdentity(q, deps.tables, {
    userId: id,
    provider: "email",
    providerId: id,
    identityData: contactIdentityData(id, { email }, false),
  });
  return user;
}

/** A confirmation token for an invite: code, hash, confirmation_sent_at and invited_at. */
async function issueInvite(q: Queryable, deps: AuthDeps, user: UserRow, otp: string) {
  const hash = tokenHash(user.email as string, otp);
  await saveToken(q, deps, user.id, "confirmation_token", hash, user.email as string);
  return updateUser(q, deps.tables, user.id, { confirmation_token: hash, confirmation_sent_at: NOW, invited_at: NOW });
}

function saveToken(q: Queryable, deps: AuthDeps, userId: string, type: OneTimeTokenType, hash: string, relatesTo: string) {
  return saveOneTimeToken(q, deps.tables, { userId, type, tokenHash: hash, relatesTo });
}

export async function generateLink(
  deps: AuthDeps,
  meta: RequestMeta,
  admin: AdminActor,
  input: GenerateLinkInput,
  hints: RedirectHints,
): Promise<GenerateLinkResponse> {
  const { config, db, tables } = deps;
  const email = normalizeEmail(input.email ?? "");
  const redirectTo = isRedirectUrlValid(config, input.redirectTo)
    ? (input.redirectTo as string)
    : referrer(config, hints.redirectTo, hints.referer);
  let type = input.type ?? "";
  if (!(LINK_TYPES as readonly string[]).includes(type)) throw errors.invalidLinkType(type);
  const aud = adminAudience(deps, meta);
  const found = await findUserByEmailInAudience(db, tables, email, aud);
  let password = input.password ?? "";
  if (!found) {
    if (type === "magiclink") {
      // An unknown address gets a sign-up link instead, with a password nobody knows.
      type = "signup";
      password = randomBytes(48).toString("base64url");
    } else if (type === "recovery" || type === "email_change_current" || type === "email_change_new") {
      throw errors.linkUserNotFound();
    }
  }
  let signupHash: string | undefined;
  if (type === "signup" && !found) {
    if (!password) throw errors.validation("Signup requires a valid password");
    const { security } = config;
    checkNewPassword(password, { minLength: security.passwordMinLength, requiredCharacters: security.passwordRequiredCharacters });
    signupHash = await deps.passwords.hash(password);
  }
  let newEmail: string | undefined;
  if (type === "email_change_current" || type === "email_change_new") {
    if (!config.mailer.secureEmailChangeEnabled && type === "email_change_current") throw errors.secureEmailChangeNeeded();
    newEmail = normalizeEmail(input.newEmail ?? "");
  }

  const otp = generateOtp(config.mailer.otpLength);
  let hashed = tokenHash(email, otp);
  const linkType = (type as LinkType).startsWith("email_change") ? "email_change" : type;
  return db.transaction(async (tx) => {
    let user = found;
    switch (type as LinkType) {
      case "magiclink":
      case "recovery": {
        const existing = user as UserRow;
        await audit(tx, deps, meta, existing, "user_recovery_requested");
        await saveToken(tx, deps, existing.id, "recovery_token", hashed, existing.email ?? email);
        user = await updateUser(tx, tables, existing.id, { recovery_token: hashed, recovery_sent_at: NOW });
        break;
      }
      case "invite": {
        if (user?.email_confirmed_at) throw errors.emailExists();
        user ??= await newEmailUser(tx, deps, email, aud, input.data, null);
        await audit(tx, deps, meta, admin.auditActor, "user_invited", { user_id: user.id, user_email: user.email ?? "" });
        user = await issueInvite(tx, deps, user, otp);
        break;
      }
      case "signup": {
        if (user?.email_confirmed_at) throw errors.emailExists();
        if (user && input.data) {
          user = await updateUser(tx, tables, user.id, { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, input.data) });
        }
        user ??= await newEmailUser(tx, deps, email, aud, input.data, signupHash ?? null);
        await saveToken(tx, deps, user.id, "confirmation_token", hashed, user.email ?? email);
        user = await updateUser(tx, tables, user.id, { confirmation_token: hashed, confirmation_sent_at: NOW });
        break;
      }
      case "email_change_current":
      case "email_change_new": {
        const existing = user as UserRow;
        const target = newEmail as string;
        if (await emailTaken(tx, tables, target, existing.id)) throw errors.emailExists();
        if (type === "email_change_current") {
          await saveToken(tx, deps, existing.id, "email_change_token_current", hashed, existing.email ?? email);
          user = await updateUser(tx, tables, existing.id, {
            email_change_token_current: hashed,
            email_change: target,
            email_change_sent_at: NOW,
            email_change_confirm_status: 0,
          });
        } else {
          // The new address's token is the hash of that address and the code: it is what the link
          // carries and what verifies, so it is also the hashed_token answered.
          hashed = tokenHash(target, otp);
          await saveToken(tx, deps, existing.id, "email_change_token_new", hashed, target);
          user = await updateUser(tx, tables, existing.id, {
            email_change_token_new: hashed,
            email_change: target,
            email_change_sent_at: NOW,
            email_change_confirm_status: 0,
          });
        }
        break;
      }
    }
    const current = user as UserRow;
    const paths = config.mailer.urlPaths;
    const path =
      linkType === "invite"
        ? paths.invite
        : linkType === "signup"
          ? paths.confirmation
          : linkType === "email_change"
            ? paths.emailChange
            : paths.recovery;
    return {
      ...(await loadUserJson(tx, tables, current)),
      action_link: actionLink(deps, path, hashed, linkType, redirectTo),
      email_otp: otp,
      hashed_token: hashed,
      verification_type: type,
      redirect_to: redirectTo,
    };
  });
}

/** POST /invite: creates the user when there is none (an unconfirmed one is invited again) and sends the invite. */
export async function inviteUser(
  deps: AuthDeps,
  meta: RequestMeta,
  admin: AdminActor,
  input: { email?: string | undefined; data?: Record<string, unknown> | undefined },
  hints: RedirectHints,
): Promise<UserJson> {
  const { config, db, tables } = deps;
  const email = normalizeEmail(input.email ?? "");
  const aud = adminAudience(deps, meta);
  const redirectTo = referrer(config, hints.redirectTo, hints.referer);
  const found = await findUserByEmailInAudience(db, tables, email, aud);
  return db.transaction(async (tx) => {
    if (found?.email_confirmed_at) throw errors.emailExists();
    let user = found ?? (await newEmailUser(tx, deps, email, aud, input.data, null));
    await audit(tx, deps, meta, admin.auditActor, "user_invited", { user_id: user.id, user_email: user.email ?? "" });
    const otp = generateOtp(config.mailer.otpLength);
    user = await issueInvite(tx, deps, user, otp);
    await deps.messenger.send({
      kind: "invite",
      channel: "email",
      userId: user.id,
      to: email,
      otp,
      tokenHash: user.confirmation_token,
      redirectTo,
      email,
      data: user.raw_user_meta_data ?? {},
    });
    return loadUserJson(tx, tables, user);
  });
}

/**
 * PUT /user: user_metadata (`data`, merged; a null value removes a key), app_metadata (admins
 * only), password, and email / phone changes (see contact-change.ts). A password change ends
 * every other session of the user and discards pending one-time codes. Once the user has a verified
 * MFA factor, password, email and phone changes need an aal2 session.
 */
import type { Queryable } from "@platform/core";
import { hasVerifiedFactor } from "../db/factors.js";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { Json, UserRow } from "../db/rows.js";
import { deleteSessions } from "../db/sessions.js";
import { emailTaken, findUserById, phoneTaken, updateUser } from "../db/users.js";
import { audit } from "./audit.js";
import { changeEmail, changePhone } from "./contact-change.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { type Authenticated, isAdminUser } from "./current-user.js";
import { errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import { sendNotices } from "./notifications.js";
import { checkNewPassword } from "./passwords.js";
import { checkPkceParams } from "./pkce.js";
import { consumeNonce } from "./reauthentication.js";
import { smsChannel } from "./sms-readiness.js";
import { millis } from "./time.js";
import { loadUserJson, type UserJson } from "./user-json.js";

export interface UserUpdateInput {
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
  currentPassword?: string | undefined;
  nonce?: string | undefined;
  data?: Record<string, unknown> | undefined;
  appMetadata?: Record<string, unknown> | undefined;
  channel?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
  /** Where an email-change link leads (already checked against the allow list). */
  redirectTo?: string | undefined;
}

/** Merges `updates` into `base`; null removes a key (GoTrue's metadata update). */
export function mergeMetadata(base: Json, updates: Record<string, unknown>): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(updates)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** GoTrue's Session.IsRecovery: signed in by a one-time code (otp, magic link or recovery link). */
const RECOVERY_METHODS: readonly unknown[] = ["recovery", "otp", "magiclink"];

function usedRecovery(claims: Authenticated["claims"]): boolean {
  return Array.isArray(claims.amr) && claims.amr.some((entry) => RECOVERY_METHODS.includes((entry as { method?: unknown })?.method));
}

/** How recent a sign-in must be for a password change without a nonce (GoTrue's rule). */
const RECENT_SIGN_IN_MS = 24 * 60 * 60 * 1000;

/**
 * With SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION, a password change needs a nonce when the
 * token has no session or its session began more than 24 hours ago.
 */
function needsNonce(deps: AuthDeps, auth: Authenticated): boolean {
  if (!deps.config.security.updatePasswordRequireReauthentication) return false;
  return !auth.session || Date.now() > millis(auth.session.created_at) + RECENT_SIGN_IN_MS;
}

/** Checks a password change before anything is written; returns the new hash. */
async function preparePassword(deps: AuthDeps, auth: Authenticated, input: UserUpdateInput, password: string): Promise<string> {
  const { user } = auth;
  const { security } = deps.config;
  checkNewPassword(password, { minLength: security.passwordMinLength, requiredCharacters: security.passwordRequiredCharacters });
  if (needsNonce(deps, auth) && !input.nonce) throw errors.reauthenticationNeeded();
  if (user.encrypted_password) {
    if (security.updatePasswordRequireCurrentPassword && !usedRecovery(auth.claims)) {
      if (!input.currentPassword) throw errors.currentPasswordRequired();
      if (!(await deps.passwords.verify(input.currentPassword, user.encrypted_password))) throw errors.currentPasswordInvalid();
    }
    if (await deps.passwords.verify(password, user.encrypted_password)) throw errors.samePassword();
  }
  return deps.passwords.hash(password);
}

async function savePassword(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  auth: Authenticated,
  user: UserRow,
  hash: string,
  nonce?: string,
) {
  if (needsNonce(deps, auth)) await consumeNonce(q, deps, user, nonce ?? "");
  const updated = await updateUser(q, deps.tables, user.id, {
    encrypted_password: hash,
    reauthentication_token: "",
    reauthentication_sent_at: null,
  });
  await deleteOneTimeTokens(q, deps.tables, user.id);
  await deleteSessions(q, deps.tables, user.id, auth.session ? { except: auth.session.id } : {});
  await audit(q, deps, meta, user, "user_updated_password");
  return updated;
}

export async function updateCurrentUser(deps: AuthDeps, meta: RequestMeta, auth: Authenticated, input: UserUpdateInput): Promise<UserJson> {
  const { user } = auth;
  const email = input.email ? normalizeEmail(input.email) : undefined;
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  const via = phone ? smsChannel(deps.config.sms, input.channel) : "sms";
  checkPkceParams(input);
  if (input.appMetadata !== undefined && !isAdminUser(deps, user)) throw errors.appMetadataNotAllowed();
  const newEmail = email !== undefined && email !== (user.email ?? "") ? email : undefined;
  const newPhone = phone !== undefined && phone !== (user.phone ?? "") ? phone : undefined;
  // GoTrue: with a verified factor, changing the password, email or phone needs an aal2 session.
  if (
    (input.password || newEmail || newPhone) &&
    auth.session?.aal !== "aal2" &&
    (await hasVerifiedFactor(deps.db, deps.tables, user.id))
  ) {
    throw errors.userUpdateNeedsAal2();
  }
  if (user.is_anonymous && input.password && !email && !phone) throw errors.anonymousPasswordWithoutIdentifier();
  if (newEmail && (await emailTaken(deps.db, deps.tables, newEmail, user.id))) throw errors.emailExists();
  if (newPhone && (await phoneTaken(deps.db, deps.tables, newPhone, user.id))) throw errors.phoneExists();
  const passwordHash = input.password !== undefined ? await preparePassword(deps, auth, input, input.password) : undefined;

  const updated = await deps.db.transaction(async (tx) => {
    let current = (await findUserById(tx, deps.tables, user.id, { lock: true })) ?? user;
    if (passwordHash !== undefined) current = await savePassword(tx, deps, meta, auth, current, passwordHash, input.nonce);
    if (input.data)
      current = await updateUser(tx, deps.tables, user.id, {
        raw_user_meta_data: mergeMetadata(current.raw_user_meta_data ?? {}, input.data),
      });
    if (input.appMetadata) {
      current = await updateUser(tx, deps.tables, user.id, {
        raw_app_meta_data: mergeMetadata(current.raw_app_meta_data ?? {}, input.appMetadata),
      });
    }
    if (newEmail) current = await changeEmail(tx, deps, current, newEmail, input);
    if (newPhone) current = await changePhone(tx, deps, current, newPhone, via);
    await audit(tx, deps, meta, current, "user_modified");
    return { row: current, json: await loadUserJson(tx, deps.tables, current) };
  });
  if (passwordHash !== undefined) await sendNotices(deps, [{ kind: "password_changed_notification", user: updated.row }]);
  return updated.json;
}

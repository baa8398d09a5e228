/**
 * POST and GET /verify (GoTrue's verify.go). A code is checked either by its hash (`token_hash`,
 * what links carry; looked up in one_time_tokens) or as `token` with the email or phone it was
 * sent to (the hash is recomputed and compared with the user's column). Codes expire
 * MAILER_OTP_EXP (email) or SMS_OTP_EXP (SMS) after they were sent and work once: success clears
 * every pending code of the user. Then, by type:
 * - signup, invite: the email is confirmed (an invited user without a password gets a random one);
 * - magiclink, recovery (and `email`, which is whichever of signup and magiclink the code is):
 *   the recovery code is spent, and an unconfirmed email is confirmed;
 * - email_change: with secure email change the first of the two codes only records that half
 *   (answered `{msg, code}`); the second, or the only one, applies the new address;
 * - sms: the phone is confirmed; phone_change: the new phone is applied.
 * The answer is a new session (POST, with `type`); GET's redirect is verify-redirect.ts.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Queryable } from "@platform/core";
import { identitiesOfUser, updateIdentityData } from "../db/identities.js";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { OneTimeTokenType, Timestamp, UserRow } from "../db/rows.js";
import { findOneTimeToken } from "../db/token-lookup.js";
import { findUserByEmailInAudience, findUserByPhoneChange, findUserByPhoneInAudience, identityOfUser } from "../db/user-directory.js";
import { findUserById, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import { confirmEmail, confirmPhone, contactIdentityData, refreshProviders, upsertIdentity } from "./account-changes.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { AuthError, errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import { type Notice, sendNotices } from "./notifications.js";
import { tokenHash } from "./one-time-tokens.js";
import { testOtpFor } from "./phone-codes.js";
import { type AuthMethod, startSession, type TokenResponse } from "./sessions.js";
import { providerApproves } from "./sms-readiness.js";
import { millis } from "./time.js";

export const VERIFY_TYPES = ["signup", "invite", "magiclink", "recovery", "email_change", "email", "sms", "phone_change"] as const;
type VerifyType = (typeof VERIFY_TYPES)[number];

export const SINGLE_CONFIRMATION_ACCEPTED = "Confirmation link accepted. Please proceed to confirm link sent to the other email";

export interface VerifyInput {
  type?: string | undefined;
  token?: string | undefined;
  tokenHash?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  redirectTo?: string | undefined;
}

export type VerifyResult =
  | { kind: "session"; type: string; session: TokenResponse }
  /** The first half of a secure email change. */
  | { kind: "half"; message: string };

interface Checked {
  user: UserRow;
  /** The type after `email` is resolved to signup or magiclink. */
  type: VerifyType;
  hash: string;
  phone?: string | undefined;
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const expired = (sentAt: Timestamp | null, seconds: number) => !sentAt || millis(sentAt) + seconds * 1000 < Date.now();

/** GoTrue's isOtpValid: a stored code (possibly `pkce_`-prefixed), sent no longer ago than its lifetime. */
function otpValid(hash: string, expected: string, sentAt: Timestamp | null, seconds: number): boolean {
  if (!expected || !sentAt || expired(sentAt, seconds)) return false;
  return sameHash(hash, expected) || sameHash(`pkce_${hash}`, expected);
}

const isBanned = (user: UserRow) => user.banned_until !== null && millis(user.banned_until) > Date.now();

function isVerifyType(type: string): type is VerifyType {
  return (VERIFY_TYPES as readonly string[]).includes(type);
}

/** By token hash (links): the one-time token row names the user. */
export async function checkTokenHash(q: Queryable, deps: AuthDeps, type: string, hash: string): Promise<Checked> {
  const byType: Partial<Record<VerifyType, OneTimeTokenType[]>> = {
    email: ["confirmation_token", "recovery_token"],
    signup: ["confirmation_token"],
    invite: ["confirmation_token"],
    recovery: ["recovery_token"],
    magiclink: ["recovery_token"],
    email_change: ["email_change_token_current", "email_change_token_new"],
  };
  const types = isVerifyType(type) ? byType[type] : undefined;
  if (!types) throw errors.invalidEmailVerificationType();
  const token = await findOneTimeToken(q, deps.tables, hash, types);
  const user = token ? await findUserById(q, deps.tables, token.user_id, { lock: true }) : undefined;
  if (!user) throw errors.emailLinkInvalid();
  if (isBanned(user)) throw errors.bannedBearer();
  const lifetime = deps.config.mailer.otpExpSeconds;
  let resolved = type as VerifyType;
  let sentAt: Timestamp | null;
  if (type === "email") {
    const recovery = user.recovery_token !== "" && sameHash(user.recovery_token, hash);
    resolved = recovery ? "magiclink" : "signup";
    sentAt = recovery ? user.recovery_sent_at : user.confirmation_sent_at;
  } else if (type === "signup" || type === "invite") sentAt = user.confirmation_sent_at;
  else if (type === "recovery" || type === "magiclink") sentAt = user.recovery_sent_at;
  else sentAt = user.email_change_sent_at;
  if (expired(sentAt, lifetime)) throw errors.emailLinkInvalid();
  return { user, type: resolved, hash };
}

interface Code {
  hash: string;
  token: string;
  email?: string | undefined;
  phone?: string | undefined;
}

/** By code and address: the user is found by the address, then the code is compared with the column for the type. */
async function checkCode(q: Queryable, deps: AuthDeps, meta: RequestMeta, type: string, input: Code): Promise<Checked> {
  const { config, tables } = deps;
  const aud = meta.audience ?? config.jwt.aud;
  const { hash, phone, email } = input;
  let user: UserRow | undefined;
  if (type === "phone_change" || type === "sms") {
    user = phone ? await (type === "sms" ? findUserByPhoneInAudience : findUserByPhoneChange)(q, tables, phone, aud) : undefined;
  } else if (type === "email_change") {
    const kinds: OneTimeTokenType[] = config.mailer.secureEmailChangeEnabled
      ? ["email_change_token_current", "email_change_token_new"]
      : ["email_change_token_new"];
    const token = (await findOneTimeToken(q, tables, hash, kinds)) ?? (await findOneTimeToken(q, tables, `pkce_${hash}`, kinds));
    const owner = token ? await findUserById(q, tables, token.user_id) : undefined;
    user = owner && owner.aud === aud ? owner : undefined;
  } else user = email ? await findUserByEmailInAudience(q, tables, email, aud) : undefined;
  if (user) user = await findUserById(q, tables, user.id, { lock: true });
  if (!user) throw errors.otpInvalid();
  if (isBanned(user)) throw errors.bannedBearer();

  const mailLifetime = config.mailer.otpExpSeconds;
  let resolved = type as VerifyType;
  let valid = false;
  switch (type) {
    case "email":
      if (otpValid(hash, user.confirmation_token, user.confirmation_sent_at, mailLifetime)) {
        valid = true;
        resolved = "signup";
      } else if (otpValid(hash, user.recovery_token, user.recovery_sent_at, mailLifetime)) {
        valid = true;
        resolved = "magiclink";
      }
      break;
    case "signup":
    case "invite":
      valid = otpValid(hash, user.confirmation_token, user.confirmation_sent_at, mailLifetime);
      break;
    case "recovery":
    case "magiclink":
      valid = otpValid(hash, user.recovery_token, user.recovery_sent_at, mailLifetime);
      break;
    case "email_change":
      valid =
        otpValid(hash, user.email_change_token_current, user.email_change_sent_at, mailLifetime) ||
        otpValid(hash, user.email_change_token_new, user.email_change_sent_at, mailLifetime);
      break;
    case "sms":
    case "phone_change": {
      const testOtp = testOtpFor(deps, phone as string);
      if (testOtp !== undefined && sameHash(testOtp, input.token)) {
        valid = true;
        break;
      }
      if (deps.smsCodes) {
        valid = await providerApproves(deps, type === "sms" ? (phone as string) : (user.phone_change ?? ""), input.token);
        break;
      }
      const [expected, sentAt] =
        type === "sms" ? [user.confirmation_token, user.confirmation_sent_at] : [user.phone_change_token, user.phone_change_sent_at];
      valid = otpValid(hash, expected, sentAt, config.sms.otpExpSeconds);
      break;
    }
  }
  if (!valid) throw errors.otpInvalid();
  return { user, type: resolved, hash, phone };
}

/** Validates the request's fields (GoTrue's VerifyParams.Validate for POST) and computes the hash to look for. */
function prepare(input: VerifyInput): { type: string; token?: string; hash: string; email?: string; phone?: string } {
  const type = input.type ?? "";
  if (type === "") throw errors.validation("Verify requires a verification type");
  const token = input.token ?? "";
  const hash = input.tokenHash ?? "";
  if ((token === "" && hash === "") || (token !== "" && hash !== ""))
    throw errors.validation("Verify requires either a token or a token hash");
  const phone = input.phone ?? "";
  const email = input.email ?? "";
  if (token !== "") {
    if (phone !== "" && email === "") {
      const normalized = normalizePhone(phone);
      return { type, token, hash: tokenHash(normalized, token), phone: normalized };
    }
    if (email !== "" && phone === "") {
      let normalized: string;
      try {
        normalized = normalizeEmail(email);
      } catch (error) {
        if (error instanceof AuthError) throw errors.validation("Invalid email format", 422);
        throw error;
      }
      return { type, token, hash: tokenHash(normalized, token), email: normalized };
    }
    throw errors.validation("Only an email address or phone number should be provided on verify");
  }
  if (email !== "" || phone !== "" || (input.redirectTo ?? "") !== "") {
    throw errors.validation("Only the token_hash and type should be provided");
  }
  return { type, hash };
}

/** GoTrue's signupVerify: confirms the email; an invited user without a password gets one nobody knows. */
async function applySignup(q: Queryable, deps: AuthDeps, meta: RequestMeta, user: UserRow): Promise<UserRow> {
  let current = user;
  if (!current.encrypted_password && current.invited_at) {
    const hash = await deps.passwords.hash(randomBytes(48).toString("base64url"));
    current = await updateUser(q, deps.tables, user.id, { encrypted_password: hash });
  }
  await audit(q, deps, meta, current, "user_signedup", { provider: "email" });
  current = await confirmEmail(q, deps, current);
  for (const identity of await identitiesOfUser(q, deps.tables, user.id)) {
    if (!identity.email || !current.email || identity.email !== current.email.toLowerCase()) continue;
    await updateIdentityData(q, deps.tables, identity.id, { ...identity.identity_data, email_verified: true });
  }
  return current;
}

/** GoTrue's recoverVerify: spends the recovery code; an unconfirmed email is confirmed by it. */
async function applyRecovery(q: Queryable, deps: AuthDeps, meta: RequestMeta, user: UserRow): Promise<UserRow> {
  let current = await updateUser(q, deps.tables, user.id, { recovery_token: "" });
  await deleteOneTimeTokens(q, deps.tables, user.id);
  if (!current.email_confirmed_at) {
    await audit(q, deps, meta, current, "user_signedup", { provider: "email" });
    current = await confirmEmail(q, deps, current);
  } else {
    await audit(q, deps, meta, current, "login");
  }
  return current;
}

/** GoTrue's emailChangeVerify. Undefined when only the first of two secure-change codes was confirmed. */
async function applyEmailChange(q: Queryable, deps: AuthDeps, meta: RequestMeta, user: UserRow, hash: string) {
  const { config, tables } = deps;
  if (!config.mailer.autoconfirm && config.mailer.secureEmailChangeEnabled && user.email_change_confirm_status === 0 && user.email) {
    const matches = (stored: string) => stored !== "" && (sameHash(stored, hash) || sameHash(stored, `pkce_${hash}`));
    if (matches(user.email_change_token_current)) {
      await updateUser(q, tables, user.id, { email_change_confirm_status: 1, email_change_token_current: "" });
      await deleteOneTimeTokens(q, tables, user.id, "email_change_token_current");
    } else if (matches(user.email_change_token_new)) {
      await updateUser(q, tables, user.id, { email_change_confirm_status: 1, email_change_token_new: "" });
      await deleteOneTimeTokens(q, tables, user.id, "email_change_token_new");
    } else {
      await updateUser(q, tables, user.id, { email_change_confirm_status: 1 });
    }
    return undefined;
  }
  const address = user.email_change;
  await audit(q, deps, meta, user, "user_modified");
  await upsertIdentity(
    q,
    deps,
    user,
    "email",
    { email: address, email_verified: true },
    contactIdentityData(user.id, { email: address }, true),
  );
  let current = await updateUser(q, tables, user.id, {
    email: address,
    email_change: "",
    email_change_token_current: "",
    email_change_token_new: "",
    email_change_confirm_status: 0,
    is_anonymous: false,
  });
  await deleteOneTimeTokens(q, tables, user.id);
  if (!current.email_confirmed_at) current = await confirmEmail(q, deps, current);
  return current;
}

/** GoTrue's smsVerify. */
async function applyPhone(q: Queryable, deps: AuthDeps, meta: RequestMeta, user: UserRow, type: "sms" | "phone_change", phone: string) {
  let current = user;
  if (type === "sms") {
    await audit(q, deps, meta, current, "user_signedup", { provider: "phone" });
    current = await confirmPhone(q, deps, current);
  } else {
    await audit(q, deps, meta, current, "user_modified");
    await upsertIdentity(q, deps, current, "phone", { phone, phone_verified: true }, contactIdentityData(user.id, { phone }, true));
    current = await updateUser(q, deps.tables, user.id, {
      phone: current.phone_change,
      phone_change: "",
      phone_change_token: "",
      phone_confirmed_at: NOW,
    });
    await deleteOneTimeTokens(q, deps.tables, user.id);
  }
  if (current.is_anonymous) current = await updateUser(q, deps.tables, user.id, { is_anonymous: false });
  return current;
}

/** The amr method of a verified session: `recovery` for a recovery link (so it may set a new password), else `otp`. */
export const methodOf = (type: VerifyType): AuthMethod => (type === "recovery" ? "recovery" : "otp");

/**
 * Applies a checked code: the verified user, or undefined after the first half of a secure email
 * change. The notifications the change calls for are added to `notices`, to be sent once it is committed.
 */
export async function apply(
  q: Queryable,
  deps: AuthDeps,
  meta: RequestMeta,
  checked: Checked,
  notices: Notice[],
): Promise<UserRow | undefined> {
  const { type } = checked;
  const before = checked.user;
  let user: UserRow | undefined;
  switch (type) {
    case "signup":
    case "invite":
      user = await applySignup(q, deps, meta, checked.user);
      break;
    case "recovery":
    case "magiclink":
      user = await applyRecovery(q, deps, meta, checked.user);
      break;
    case "email_change":
      user = await applyEmailChange(q, deps, meta, checked.user, checked.hash);
      if (!user) return undefined;
      if ((before.email ?? "") !== "" && before.email !== user.email) {
        notices.push({ kind: "email_changed_notification", user, oldEmail: before.email ?? "" });
      }
      break;
    case "sms":
      user = await applyPhone(q, deps, meta, checked.user, type, checked.phone ?? checked.user.phone_change);
      break;
    case "phone_change": {
      const linked = (await identityOfUser(q, deps.tables, before.id, "phone")) === undefined;
      user = await applyPhone(q, deps, meta, checked.user, type, checked.phone ?? checked.user.phone_change);
      if ((before.phone ?? "") !== user.phone) notices.push({ kind: "phone_changed_notification", user, oldPhone: before.phone ?? "" });
      if (linked) notices.push({ kind: "identity_linked_notification", user, provider: "phone" });
      break;
    }
    default:
      throw errors.validation("Unsupported verification type");
  }
  return refreshProviders(q, deps, user);
}

async function complete(q: Queryable, deps: AuthDeps, meta: RequestMeta, checked: Checked, notices: Notice[]): Promise<VerifyResult> {
  const user = await apply(q, deps, meta, checked, notices);
  if (!user) return { kind: "half", message: SINGLE_CONFIRMATION_ACCEPTED };
  return { kind: "session", type: checked.type, session: await startSession(q, deps, meta, user, methodOf(checked.type)) };
}

export async function verifyPost(deps: AuthDeps, meta: RequestMeta, input: VerifyInput): Promise<VerifyResult> {
  const prepared = prepare(input);
  if (!isVerifyType(prepared.type)) throw errors.validation("Unsupported verification type");
  const notices: Notice[] = [];
  const result = await deps.db.transaction(async (tx) => {
    const checked = prepared.token
      ? await checkCode(tx, deps, meta, prepared.type, { ...prepared, token: prepared.token })
      : await checkTokenHash(tx, deps, prepared.type, prepared.hash);
    return complete(tx, deps, meta, checked, notices);
  });
  await sendNotices(deps, notices);
  return result;
}

/**
 * POST /signup with an email or a phone and a password. With autoconfirm the user is confirmed at
 * once and gets a session; otherwise a confirmation code is issued and the user object is answered.
 * A sign-up for an address that already has an account answers a fake user (new random id, no
 * identities) so account existence does not leak; with autoconfirm it is refused as
 * user_already_exists (422 for email; 400 for phone, as GoTrue's README documents).
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import { isUniqueViolation } from "../db/errors.js";
import { insertIdentity } from "../db/identities.js";
import type { IdentityRow, UserRow } from "../db/rows.js";
import { findUserByEmail, findUserById, findUserByPhone, insertUser } from "../db/users.js";
import { confirmEmail, confirmPhone } from "./account-changes.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { refuseInsideWindow, sendEmailCode } from "./email-codes.js";
import { errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import { checkNewPassword } from "./passwords.js";
import { sendPhoneCode } from "./phone-codes.js";
import { checkPkceParams, type PkceParams } from "./pkce.js";
import { startSession, type TokenResponse } from "./sessions.js";
import { smsChannel } from "./sms-readiness.js";
import { nowIso, secondsUntil } from "./time.js";
import { type UserJson, userJson } from "./user-json.js";

export interface SignupInput {
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
  data?: Record<string, unknown> | undefined;
  channel?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
  /** Where the confirmation link leads (already checked against the allow list). */
  redirectTo?: string | undefined;
}

export type SignupResult = { session: TokenResponse } | { user: UserJson };

type Provider = "email" | "phone";

function validate(deps: AuthDeps, input: SignupInput): void {
  if (!input.password) throw errors.validation("Signup requires a valid password");
  checkNewPassword(input.password, {
    minLength: deps.config.security.passwordMinLength,
    requiredCharacters: deps.config.security.passwordRequiredCharacters,
  });
  if (input.email && input.phone) throw errors.validation("Only an email address or phone number should be provided on signup.");
  if (input.phone) {
    smsChannel(deps.config.sms, input.channel);
    if (input.codeChallenge) throw errors.validation("PKCE not supported for phone signups");
  }
  checkPkceParams(input);
}

/** The identity data GoTrue records for an email or phone identity: sub, email, the verified flags, then the sign-up data. */
function identityData(userId: string, email: string | null, data: Record<string, unknown>, verified: boolean, provider: Provider) {
  const base: Record<string, unknown> = { sub: userId };
  if (email) base.email = email;
  base.email_verified = provider === "email" && verified;
  base.phone_verified = provider === "phone" && verified;
  for (const [key, value] of Object.entries(data)) if (!(key in base)) base[key] = value;
  return base;
}

/** The answer for a sign-up whose address is taken: a plausible, unconfirmed user that does not exist. */
function fakeUser(provider: Provider, address: string, data: Record<string, unknown>, audience: string): UserJson {
  const now = nowIso();
  return {
    id: randomUUID(),
    aud: audience,
    role: "",
    email: provider === "email" ? address : "",
    phone: provider === "phone" ? address : "",
    confirmation_sent_at: now,
    app_metadata: { provider, providers: [provider] },
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  };
}

/** How a confirmation goes out: the PKCE challenge (email only), the link's target, the SMS channel. */
interface ConfirmationRequest extends PkceParams {
  redirectTo?: string | undefined;
  channel?: string | undefined;
}

/**
 * Issues a confirmation code and hands it to the messenger (inside the caller's transaction: a
 * failed send undoes it). An email confirmation in a PKCE flow starts the flow first.
 */
async function requestConfirmation(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  provider: Provider,
  request: ConfirmationRequest,
): Promise<UserRow> {
  if (provider === "phone") {
    const via = request.channel === "whatsapp" ? "whatsapp" : "sms";
    return (await sendPhoneCode(q, deps, user, { purpose: "confirmation", phone: user.phone as string, via })).user;
  }
  return sendEmailCode(q, deps, user, "confirmation", { flow: request, redirectTo: request.redirectTo });
}

async function repeatedSignup(
  deps: AuthDeps,
  meta: RequestMeta,
  existing: UserRow,
  provider: Provider,
  input: SignupInput,
  address: string,
) {
  const { config } = deps;
  if (config.mailer.autoconfirm || config.sms.autoconfirm) throw errors.userAlreadyExists(provider === "email" ? 422 : 400);
  const confirmed = provider === "email" ? existing.email_confirmed_at : existing.phone_confirmed_at;
  const frequency = provider === "email" ? config.smtp.maxFrequencyMs : config.sms.maxFrequencyMs;
  await deps.db.transaction(async (tx) => {
    await audit(tx, deps, meta, existing, "user_repeated_signup", { provider });
    // An unconfirmed account gets its confirmation again, unless one went out recently; the
    // answer is the same fake user either way.
    if (!confirmed && secondsUntil(existing.confirmation_sent_at, frequency) === 0) {
      await requestConfirmation(tx, deps, existing, provider, input);
    }
  });
  return fakeUser(provider, address, input.data ?? {}, meta.audience ?? config.jwt.aud);
}

export async function signup(deps: AuthDeps, meta: RequestMeta, input: SignupInput): Promise<SignupResult> {
  const { config, db, tables } = deps;
  if (config.disableSignup) throw errors.signupDisabled();
  validate(deps, input);
  const provider: Provider = input.email ? "email" : "phone";
  let address: string;
  let existing: UserRow | undefined;
  if (provider === "email") {
    if (!config.external.email) throw errors.emailSignupsDisabled();
    address = normalizeEmail(input.email as string);
    existing = await findUserByEmail(db, tables, address);
  } else {
    if (!config.external.phone) throw errors.phoneSignupsDisabled();
    address = normalizePhone(input.phone as string);
    existing = await findUserByPhone(db, tables, address);
  }
  if (existing) return { user: await repeatedSignup(deps, meta, existing, provider, input, address) };

  const autoconfirm = provider === "email" ? config.mailer.autoconfirm : config.sms.autoconfirm;
  const encryptedPassword = await deps.passwords.hash(input.password as string);
  const id = randomUUID();
  const data = identityData(id, provider === "email" ? address : null, input.data ?? {}, autoconfirm, provider);
  try {
    return await createUser(deps, meta, { id, provider, address, autoconfirm, encryptedPassword, data, request: input });
  } catch (error) {
    // Another sign-up for the same address won the race; answer as for any repeated sign-up.
    if (!isUniqueViolation(error)) throw error;
    const winner = provider === "email" ? await findUserByEmail(db, tables, address) : await findUserByPhone(db, tables, address);
    if (!winner) throw error;
    return { user: await repeatedSignup(deps, meta, winner, provider, input, address) };
  }
}

interface NewAccount {
  id: string;
  provider: Provider;
  address: string;
  autoconfirm: boolean;
  encryptedPassword: string | null;
  data: Record<string, unknown>;
  request: ConfirmationRequest;
  /** A confirmed account starts a session (POST /signup); /otp and /magiclink send their code instead. */
  session: boolean;
}

interface Created {
  user: UserRow;
  identity: IdentityRow;
  session?: TokenResponse | undefined;
}

function createAccount(deps: AuthDeps, meta: RequestMeta, account: NewAccount): Promise<Created> {
  const { config, tables } = deps;
  const { id, provider, address, autoconfirm, encryptedPassword, data, request } = account;
  return deps.db.transaction(async (tx): Promise<Created> => {
    let user = await insertUser(tx, tables, {
      id,
      aud: meta.audience ?? config.jwt.aud,
      role: config.jwt.defaultGroupName,
      email: provider === "email" ? address : null,
      phone: provider === "phone" ? address : null,
      encryptedPassword,
      appMetadata: { provider, providers: [provider] },
      userMetadata: data,
      isAnonymous: false,
      emailConfirmed: provider === "email" && autoconfirm,
      phoneConfirmed: provider === "phone" && autoconfirm,
    });
    const identity = await insertIdentity(tx, tables, { userId: id, provider, providerId: id, identityData: data });
    if (autoconfirm) {
      await audit(tx, deps, meta, user, "user_signedup", { provider });
      if (!account.session) return { user, identity };
      await audit(tx, deps, meta, user, "login", { provider });
      return { user, identity, session: await startSession(tx, deps, meta, user, "password") };
    }
    await audit(tx, deps, meta, user, "user_confirmation_requested", { provider });
    user = await requestConfirmation(tx, deps, user, provider, request);
    return { user, identity };
  });
}

async function createUser(deps: AuthDeps, meta: RequestMeta, account: Omit<NewAccount, "session">): Promise<SignupResult> {
  const created = await createAccount(deps, meta, { ...account, session: true });
  return created.session ? { session: created.session } : { user: userJson(created.user, [created.identity]) };
}

export interface OtpSignup extends ConfirmationRequest {
  provider: Provider;
  /** The normalised email address or phone number. */
  address: string;
  data: Record<string, unknown>;
}

/**
 * The sign-up /otp and /magiclink make for an address without a confirmed account (GoTrue runs
 * its Signup with a random password): with autoconfirm the account is confirmed at once and
 * answered, so the caller sends its code; otherwise a confirmation (which works as the sign-in
 * link or code) is sent and undefined answered. The account gets no password at all, which signs
 * in exactly as a random one nobody knows would, without the cost of hashing one.
 */
export async function signupForOtp(deps: AuthDeps, meta: RequestMeta, input: OtpSignup): Promise<UserRow | undefined> {
  const { config, db, tables } = deps;
  if (config.disableSignup) throw errors.signupDisabled();
  const { provider, address } = input;
  const autoconfirm = provider === "email" ? config.mailer.autoconfirm : config.sms.autoconfirm;
  const find = () => (provider === "email" ? findUserByEmail(db, tables, address) : findUserByPhone(db, tables, address));
  let existing = await find();
  if (!existing) {
    const id = randomUUID();
    const data = identityData(id, provider === "email" ? address : null, input.data, autoconfirm, provider);
    try {
      const created = await createAccount(deps, meta, {
        id,
        provider,
        address,
        autoconfirm,
        encryptedPassword: null,
        data,
        request: input,
        session: false,
      });
      return autoconfirm ? created.user : undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      existing = await find();
      if (!existing) throw error;
    }
  }
  const found = existing;
  const confirmed = provider === "email" ? found.email_confirmed_at : found.phone_confirmed_at;
  if (confirmed) return found;
  const frequency = provider === "email" ? config.smtp.maxFrequencyMs : config.sms.maxFrequencyMs;
  return db.transaction(async (tx) => {
    const user = (await findUserById(tx, tables, found.id, { lock: true })) ?? found;
    if (autoconfirm) return provider === "email" ? confirmEmail(tx, deps, user) : confirmPhone(tx, deps, user);
    // Sent too recently: the earlier confirmation still works and nothing is sent; GoTrue's 429,
    // or nothing said with SECURITY_SILENT_SEND_WINDOW.
    const wait = secondsUntil(user.confirmation_sent_at, frequency);
    if (wait > 0) {
      refuseInsideWindow(deps, wait, provider === "email" ? "email" : "sms");
      return undefined;
    }
    await audit(tx, deps, meta, user, "user_confirmation_requested", { provider });
    await requestConfirmation(tx, deps, user, provider, input);
    return undefined;
  });
}

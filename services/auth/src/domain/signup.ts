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
import type { UserRow } from "../db/rows.js";
import { findUserByEmail, findUserByPhone, insertUser, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { checkNewPassword } from "./passwords.js";
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
}

export type SignupResult = { session: TokenResponse } | { user: UserJson };

type Provider = "email" | "phone";

const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

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

/** GoTrue's validatePKCEParams: both or neither of code_challenge and code_challenge_method, each well-formed. */
export function checkPkceParams(input: { codeChallenge?: string | undefined; codeChallengeMethod?: string | undefined }): void {
  if (input.codeChallenge || input.codeChallengeMethod) {
    if (!input.codeChallenge || !input.codeChallengeMethod) {
      throw errors.validation("PKCE flow requires code_challenge_method and code_challenge");
    }
    if (!["s256", "plain"].includes(input.codeChallengeMethod.toLowerCase())) {
      throw errors.validation(`code challenge method not supported: ${input.codeChallengeMethod}`);
    }
    if (!CHALLENGE.test(input.codeChallenge)) throw errors.validation("code challenge has to be between 43 and 128 characters");
  }
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

/** Issues a confirmation code and hands it to the messenger (inside the caller's transaction: a failed send undoes it). */
async function requestConfirmation(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  provider: Provider,
  via: "sms" | "whatsapp" | undefined,
): Promise<UserRow> {
  const identifier = provider === "email" ? (user.email as string) : (user.phone as string);
  const length = provider === "email" ? deps.config.mailer.otpLength : deps.config.sms.otpLength;
  const { otp, hash } = await issueOneTimeToken(q, deps.tables, { userId: user.id, type: "confirmation_token", identifier, length });
  const updated = await updateUser(q, deps.tables, user.id, { confirmation_token: hash, confirmation_sent_at: NOW });
  const channel = provider === "email" ? "email" : "sms";
  await deps.messenger.send({
    kind: "confirmation",
    channel,
    userId: user.id,
    to: identifier,
    otp,
    tokenHash: hash,
    email: user.email ?? "",
    data: user.raw_user_meta_data ?? {},
    ...(channel === "sms" ? { via } : {}),
  });
  return updated;
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
    if (!confirmed && secondsUntil(existing.confirmation_sent_at, frequency) === 0)
      await requestConfirmation(tx, deps, existing, provider, viaOf(deps, provider, input));
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
    return await createUser(deps, meta, { id, provider, address, autoconfirm, encryptedPassword, data, via: viaOf(deps, provider, input) });
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
  encryptedPassword: string;
  data: Record<string, unknown>;
  via: "sms" | "whatsapp" | undefined;
}

/** The channel a phone sign-up's code goes by (validated already). */
const viaOf = (deps: AuthDeps, provider: Provider, input: SignupInput) =>
  provider === "phone" ? smsChannel(deps.config.sms, input.channel) : undefined;

function createUser(deps: AuthDeps, meta: RequestMeta, account: NewAccount): Promise<SignupResult> {
  const { config, tables } = deps;
  const { id, provider, address, autoconfirm, encryptedPassword, data } = account;
  return deps.db.transaction(async (tx): Promise<SignupResult> => {
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
      await audit(tx, deps, meta, user, "login", { provider });
      return { session: await startSession(tx, deps, meta, user, "password") };
    }
    await audit(tx, deps, meta, user, "user_confirmation_requested", { provider });
    user = await requestConfirmation(tx, deps, user, provider, account.via);
    return { user: userJson(user, [identity]) };
  });
}

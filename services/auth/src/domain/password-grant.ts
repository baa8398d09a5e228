/**
 * grant_type=password. Unknown user, user without password and wrong password all answer the
 * same "Invalid login credentials" after the same bcrypt work; ban and confirmation are only
 * revealed to someone who knows the password.
 */
import { findUserByEmail, findUserByPhone } from "../db/users.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { formatPhone } from "./identifiers.js";
import { weaknessOf } from "./passwords.js";
import { startSession, type TokenResponse } from "./sessions.js";
import { millis } from "./time.js";

export interface PasswordGrantInput {
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
}

export async function passwordGrant(deps: AuthDeps, meta: RequestMeta, input: PasswordGrantInput): Promise<TokenResponse> {
  const { config, db, tables } = deps;
  const email = input.email ?? "";
  const phone = input.phone ?? "";
  if (email !== "" && phone !== "") throw errors.validation("Only an email address or phone number should be provided on login.");
  let user: Awaited<ReturnType<typeof findUserByEmail>>;
  if (email !== "") {
    if (!config.external.email) throw errors.emailLoginsDisabled();
    user = await findUserByEmail(db, tables, email);
  } else if (phone !== "") {
    if (!config.external.phone) throw errors.phoneLoginsDisabled();
    user = await findUserByPhone(db, tables, formatPhone(phone));
  } else {
    throw errors.validation("missing email or phone");
  }
  const audience = meta.audience ?? config.jwt.aud;
  const candidate = user && user.aud === audience ? user : undefined;
  const password = input.password ?? "";
  const valid = await deps.passwords.verify(password, candidate?.encrypted_password);
  if (!candidate || !valid) throw errors.invalidCredentials();
  if (candidate.banned_until && millis(candidate.banned_until) > Date.now()) throw errors.userBanned();
  if (email !== "" && !candidate.email_confirmed_at) throw errors.emailNotConfirmed();
  if (phone !== "" && !candidate.phone_confirmed_at) throw errors.phoneNotConfirmed();

  const response = await db.transaction(async (tx) => {
    await audit(tx, deps, meta, candidate, "login", { provider: email !== "" ? "email" : "phone" });
    return startSession(tx, deps, meta, candidate, "password");
  });
  // A password that no longer meets the policy still signs in, with a warning attached.
  const weakness = weaknessOf(password, {
    minLength: config.security.passwordMinLength,
    requiredCharacters: config.security.passwordRequiredCharacters,
  });
  if (weakness) response.weak_password = weakness;
  return response;
}

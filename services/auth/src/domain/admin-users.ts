/**
 * The admin user API (GoTrue's admin.go): list, read, create, update and delete users, and
 * `ban_duration` (a Go duration, or `none` to lift a ban). A banned user cannot sign in, refresh
 * or use an access token (see password-grant.ts, refresh.ts and current-user.ts) until
 * banned_until has passed; sessions are kept. Deleting is a hard delete (sessions, tokens and
 * identities go with the user) or, with `should_soft_delete`, GoTrue's soft delete.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import { isUniqueViolation } from "../db/errors.js";
import { identitiesOfUser, insertIdentity, updateIdentityData } from "../db/identities.js";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { Json, UserRow } from "../db/rows.js";
import { deleteSessions } from "../db/sessions.js";
import { identitiesOfUsers, listUsers, setIdentityProviderId } from "../db/user-directory.js";
import { deleteUser, emailTaken, findUserByEmail, findUserById, findUserByPhone, insertUser, phoneTaken, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import { confirmEmail, confirmPhone, contactIdentityData, upsertIdentity } from "./account-changes.js";
import type { AdminActor } from "./admin-auth.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { DurationError, parseGoDuration } from "./go-duration.js";
import { checkFitsColumn, isUuid, normalizeEmail, normalizePhone } from "./identifiers.js";
import { checkImportedHash } from "./password-hashes.js";
import { checkNewPassword, MAX_PASSWORD_BYTES } from "./passwords.js";
import { loadUserJson, type UserJson, userJson } from "./user-json.js";
import { mergeMetadata } from "./user-update.js";

export interface AdminUserInput {
  id?: string | undefined;
  aud?: string | undefined;
  role?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
  passwordHash?: string | undefined;
  emailConfirm?: boolean | undefined;
  phoneConfirm?: boolean | undefined;
  userMetadata?: Record<string, unknown> | undefined;
  appMetadata?: Record<string, unknown> | undefined;
  banDuration?: string | undefined;
}

export interface UserListParams {
  page?: string | undefined;
  perPage?: string | undefined;
  filter?: string | undefined;
  sort?: string[] | undefined;
}

export interface UserListPage {
  users: UserJson[];
  aud: string;
  page: number;
  perPage: number;
  total: number;
}

const DEFAULT_PER_PAGE = 50;

/** The audience of an admin request: X-JWT-AUD, else JWT_AUD (an admin token's own aud is ignored, as in GoTrue). */
export const adminAudience = (deps: AuthDeps, meta: RequestMeta) => meta.audience ?? deps.config.jwt.aud;

/** Go's strconv.ParseUint, as GoTrue parses page and per_page. */
function parseCount(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw errors.badPagination(`strconv.ParseUint: parsing ${JSON.stringify(raw)}: invalid syntax`);
  }
  return Number(raw);
}

function parseSort(sort: string[] | undefined): boolean {
  let ascending = false;
  for (const value of sort ?? []) {
    const space = value.indexOf(" ");
    const field = space < 0 ? value : value.slice(0, space);
    if (field !== "created_at") throw errors.badSort(`bad field for sort '${field}'`);
    const direction = space < 0 ? "DESC" : value.slice(space + 1).toUpperCase();
    if (direction !== "ASC" && direction !== "DESC") {
      throw errors.badSort(`bad direction for sort '${value.slice(space + 1)}', only 'asc' and 'desc' allowed`);
    }
    ascending = direction === "ASC";
  }
  return ascending;
}

async function withIdentities(q: Queryable, deps: AuthDeps, users: UserRow[]): Promise<UserJson[]> {
  const identities = await identitiesOfUsers(
    q,
    deps.tables,
    users.map((user) => user.id),
  );
  return users.map((user) =>
    userJson(
      user,
      identities.filter((identity) => identity.user_id === user.id),
    ),
  );
}

export async function listUsersPage(deps: AuthDeps, meta: RequestMeta, params: UserListParams): Promise<UserListPage> {
  const aud = adminAudience(deps, meta);
  const ascending = parseSort(params.sort);
  // pop's Paginate: a page below 1 is page 1; a per_page of 0 would divide by zero in GoTrue.
  const page = Math.max(1, parseCount(params.page, 1));
  const perPage = parseCount(params.perPage, DEFAULT_PER_PAGE);
  if (perPage < 1) throw errors.badPagination("per_page must be at least 1");
  if (!Number.isSafeInteger((page - 1) * perPage)) throw errors.badPagination("page is out of range");
  const { users, count } = await listUsers(deps.db, deps.tables, {
    aud,
    filter: params.filter,
    ascending,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  return { users: await withIdentities(deps.db, deps, users), aud, page, perPage, total: count };
}

/** The user named by a path's `{user_id}`: 404 validation_failed for a malformed id, 404 user_not_found for an unknown one. */
export async function loadUser(q: Queryable, deps: AuthDeps, id: string, options: { lock?: boolean } = {}): Promise<UserRow> {
  if (!isUuid(id)) throw errors.userIdNotUuid();
  const user = await findUserById(q, deps.tables, id, options);
  if (!user) throw errors.userNotFound();
  return user;
}

export async function getUserById(deps: AuthDeps, id: string): Promise<UserJson> {
  const user = await loadUser(deps.db, deps, id);
  return loadUserJson(deps.db, deps.tables, user);
}

/** `undefined` for no change, 0 to lift a ban, otherwise milliseconds from now. */
function parseBan(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw === "none") return 0;
  try {
    return parseGoDuration(raw);
  } catch (error) {
    if (error instanceof DurationError) throw errors.invalidBanDuration(error.message);
    throw error;
  }
}

const bannedUntil = (ms: number) => (ms === 0 ? null : new Date(Date.now() + ms).toISOString());

/** A password nobody knows, for accounts created without one (GoTrue's 64-character random password). */
const randomPassword = () => randomBytes(48).toString("base64url");

export async function createUserAsAdmin(deps: AuthDeps, meta: RequestMeta, admin: AdminActor, input: AdminUserInput): Promise<UserJson> {
  const { config, db, tables } = deps;
  const aud = input.aud || adminAudience(deps, meta);
  checkFitsColumn("aud", aud);
  checkFitsColumn("role", input.role);
  if (!input.email && !input.phone) throw errors.adminUserWithoutContact();
  const email = input.email ? normalizeEmail(input.email) : undefined;
  if (email && (await findUserByEmail(db, tables, email))) throw errors.emailExists();
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  if (phone && (await findUserByPhone(db, tables, phone))) throw errors.phoneExists();
  if (input.password !== undefined && input.passwordHash) throw errors.passwordAndHash();
  let encryptedPassword: string;
  if (input.passwordHash) {
    checkImportedHash(input.passwordHash);
    encryptedPassword = input.passwordHash;
  } else {
    const password = input.password || randomPassword();
    if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES) throw errors.passwordTooLong(MAX_PASSWORD_BYTES);
    encryptedPassword = await deps.passwords.hash(password);
  }
  let id: string = randomUUID();
  if (input.id) {
    if (!isUuid(input.id)) throw errors.customIdInvalid();
    if (/^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(input.id)) throw errors.customIdNil();
    id = input.id.toLowerCase();
  }
  const ban = parseBan(input.banDuration);
  const providers = [...(email ? ["email"] : []), ...(phone ? ["phone"] : [])];

  // The checks above race with concurrent creates; the unique indexes decide, answered as GoTrue does.
  return insertAdminUser().catch(async (error: unknown) => {
    if (!isUniqueViolation(error)) throw error;
    if (email && (await findUserByEmail(db, tables, email))) throw errors.emailExists();
    if (phone && (await findUserByPhone(db, tables, phone))) throw errors.phoneExists();
    throw errors.userAlreadyExists(422);
  });

  async function insertAdminUser(): Promise<UserJson> {
    return db.transaction(async (tx) => {
      let user = await insertUser(tx, tables, {
        id,
        aud,
        role: input.role || config.jwt.defaultGroupName,
        email: email ?? null,
        phone: phone ?? null,
        encryptedPassword,
        appMetadata: mergeMetadata({ provider: providers[0], providers }, input.appMetadata ?? {}),
        userMetadata: input.userMetadata ?? {},
        isAnonymous: false,
        emailConfirmed: false,
        phoneConfirmed: false,
      });
      if (email) {
        const data = contactIdentityData(id, { email }, input.emailConfirm === true);
        await insertIdentity(tx, tables, { userId: id, provider: "email", providerId: id, identityData: data });
      }
      if (phone) {
        const data = contactIdentityData(id, { phone }, input.phoneConfirm === true);
        await insertIdentity(tx, tables, { userId: id, provider: "phone", providerId: id, identityData: data });
      }
      await audit(tx, deps, meta, admin.auditActor, "user_signedup", {
        user_id: id,
        user_email: email ?? "",
        user_phone: phone ?? "",
        provider: providers[0],
      });
      if (input.emailConfirm) user = await confirmEmail(tx, deps, user);
      if (input.phoneConfirm) user = await confirmPhone(tx, deps, user);
      if (ban !== undefined) user = await updateUser(tx, tables, id, { banned_until: bannedUntil(ban) });
      return loadUserJson(tx, tables, user);
    });
  }
}

export async function updateUserAsAdmin(
  deps: AuthDeps,
  meta: RequestMeta,
  admin: AdminActor,
  id: string,
  input: AdminUserInput,
): Promise<UserJson> {
  const { db, tables } = deps;
  const existing = await loadUser(db, deps, id);
  checkFitsColumn("role", input.role);
  const email = input.email ? normalizeEmail(input.email) : undefined;
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  const ban = parseBan(input.banDuration);
  if (email && (await emailTaken(db, tables, email, existing.id))) throw errors.emailExists();
  if (phone && (await phoneTaken(db, tables, phone, existing.id))) throw errors.phoneExists();
  let passwordHash: string | undefined;
  if (input.password !== undefined) {
    const { security } = deps.config;
    checkNewPassword(input.password, { minLength: security.passwordMinLength, requiredCharacters: security.passwordRequiredCharacters });
    passwordHash = await deps.passwords.hash(input.password);
  }

  return db.transaction(async (tx) => {
    let user = await loadUser(tx, deps, id, { lock: true });
    const addingFirstPassword = passwordHash !== undefined && !user.encrypted_password;
    if (input.role) user = await updateUser(tx, tables, id, { role: input.role });
    if (input.emailConfirm) user = await confirmEmail(tx, deps, user);
    if (input.phoneConfirm) user = await confirmPhone(tx, deps, user);
    if (passwordHash !== undefined) {
      // GoTrue's UpdatePassword: pending codes are void and every session ends.
      user = await updateUser(tx, tables, id, {
        encrypted_password: passwordHash,
        confirmation_token: "",
        confirmation_sent_at: null,
        recovery_token: "",
        recovery_sent_at: null,
        email_change_token_current: "",
        email_change_token_new: "",
        email_change_sent_at: null,
        phone_change_token: "",
        phone_change_sent_at: null,
        reauthentication_token: "",
        reauthentication_sent_at: null,
      });
      await deleteOneTimeTokens(tx, tables, id);
      await deleteSessions(tx, tables, id);
    }
    const confirmedContact = (confirmed: boolean | undefined) => (user.is_anonymous && confirmed ? { is_anonymous: false } : {});
    if (email) {
      await upsertIdentity(
        tx,
        deps,
        user,
        "email",
        { email, email_verified: input.emailConfirm === true },
        contactIdentityData(id, { email }, input.emailConfirm === true),
      );
      user = await updateUser(tx, tables, id, { email, ...confirmedContact(input.emailConfirm) });
    }
    if (phone) {
      await upsertIdentity(
        tx,
        deps,
        user,
        "phone",
        { phone, phone_verified: input.phoneConfirm === true },
        contactIdentityData(id, { phone }, input.phoneConfirm === true),
      );
      user = await updateUser(tx, tables, id, { phone, ...confirmedContact(input.phoneConfirm) });
    }
    if (addingFirstPassword && user.email) {
      const identities = await identitiesOfUser(tx, tables, id);
      if (!identities.some((identity) => identity.provider === "email")) {
        const data = contactIdentityData(id, { email: user.email }, Boolean(user.email_confirmed_at));
        await insertIdentity(tx, tables, { userId: id, provider: "email", providerId: id, identityData: data });
      }
    }
    if (input.appMetadata) {
      user = await updateUser(tx, tables, id, { raw_app_meta_data: mergeMetadata(user.raw_app_meta_data ?? {}, input.appMetadata) });
    }
    if (input.userMetadata) {
      user = await updateUser(tx, tables, id, { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data ?? {}, input.userMetadata) });
    }
    if (ban !== undefined) user = await updateUser(tx, tables, id, { banned_until: bannedUntil(ban) });
    await audit(tx, deps, meta, admin.auditActor, "user_modified", {
      user_id: id,
      user_email: user.email ?? "",
      user_phone: user.phone ?? "",
    });
    return loadUserJson(tx, tables, user);
  });
}

/** GoTrue's obfuscation of a soft-deleted user's addresses: base64url(SHA-256(id + value)). */
function obfuscate(id: string, value: string): string {
  return createHash("sha256")
    .update(id + value)
    .digest("base64url");
}

async function softDelete(q: Queryable, deps: AuthDeps, user: UserRow): Promise<void> {
  const { tables } = deps;
  const id = user.id;
  await updateUser(q, tables, id, {
    email: user.email ? obfuscate(id, user.email) : user.email,
    phone: user.phone ? obfuscate(id, user.phone).slice(0, 15) : user.phone,
    email_change: user.email_change ? obfuscate(id, user.email_change) : "",
    phone_change: user.phone_change ? obfuscate(id, user.phone_change).slice(0, 15) : "",
    encrypted_password: null,
    confirmation_token: "",
    recovery_token: "",
    email_change_token_current: "",
    email_change_token_new: "",
    phone_change_token: "",
    deleted_at: NOW,
    raw_user_meta_data: {},
    raw_app_meta_data: {},
  });
  await deleteOneTimeTokens(q, tables, id);
  await deleteSessions(q, tables, id);
  for (const identity of await identitiesOfUser(q, tables, id)) {
    await updateIdentityData(q, tables, identity.id, {} as Json);
    await setIdentityProviderId(q, tables, identity.id, obfuscate(id, `${identity.provider}:${identity.provider_id}`));
  }
}

export async function deleteUserAsAdmin(
  deps: AuthDeps,
  meta: RequestMeta,
  admin: AdminActor,
  id: string,
  shouldSoftDelete: boolean,
): Promise<Record<string, never>> {
  await deps.db.transaction(async (tx) => {
    const user = await loadUser(tx, deps, id, { lock: true });
    await audit(tx, deps, meta, admin.auditActor, "user_deleted", {
      user_id: user.id,
      user_email: user.email ?? "",
      user_phone: user.phone ?? "",
    });
    if (!shouldSoftDelete) await deleteUser(tx, deps.tables, user.id);
    else if (!user.deleted_at) await softDelete(tx, deps, user);
  });
  return {};
}

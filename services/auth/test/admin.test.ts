/** The admin user API through @supabase/auth-js's GoTrueAdminApi: create, list, read, update, ban, delete. */
import { randomUUID } from "node:crypto";
import { hash as argon2Hash } from "@node-rs/argon2";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGoDuration } from "../src/domain/go-duration.js";
import { adminApi, adminRequest, adminToken, createConfirmedUser } from "./support/admin.js";
import {
  backends,
  email,
  one,
  openTestDatabase,
  phone,
  readJson,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

describe("Go durations (ban_duration)", () => {
  it("reads Go's units, signs, fractions and sums", () => {
    expect(parseGoDuration("24h")).toBe(86_400_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(parseGoDuration("300ms")).toBe(300);
    expect(parseGoDuration("2500us")).toBe(2.5);
    expect(parseGoDuration("2500µs")).toBe(2.5);
    expect(parseGoDuration("1000000ns")).toBe(1);
    expect(parseGoDuration("-2m")).toBe(-120_000);
    expect(parseGoDuration("0")).toBe(0);
    expect(parseGoDuration("876000h")).toBe(876_000 * 3_600_000);
  });

  it("refuses what Go refuses, with Go's messages", () => {
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
    expect(() => parseGoDuration("10")).toThrow('time: missing unit in duration "10"');
    expect(() => parseGoDuration("1d")).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => parseGoDuration("h")).toThrow('time: invalid duration "h"');
    expect(() => parseGoDuration("3000000h")).toThrow('time: invalid duration "3000000h"');
  });
});

describe.each(backends)("the admin API on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db);
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const confirmedUser = (password?: string) => createConfirmedUser(admin, "admin", password);

  it("creates a user with metadata, role and a confirmed email; the user signs in", async () => {
    const address = email("created");
    const { data, error } = await admin.createUser({
      email: address.toUpperCase(),
      password: "secret-1",
      email_confirm: true,
      user_metadata: { name: "Ada" },
      app_metadata: { plan: "pro" },
      role: "editor",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email: address,
      phone: "",
      aud: "authenticated",
      role: "editor",
      app_metadata: { provider: "email", providers: ["email"], plan: "pro" },
      user_metadata: { name: "Ada", email_verified: true },
      is_anonymous: false,
    });
    expect(data.user?.email_confirmed_at).toBeTruthy();
    expect(data.user?.identities?.[0]).toMatchObject({ provider: "email", identity_data: { sub: data.user?.id, email: address } });
    const signIn = await server.client().signInWithPassword({ email: address, password: "secret-1" });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.user.role).toBe("editor");
  });

  it("creates a phone user (stored without +) and an unconfirmed email user who cannot sign in yet", async () => {
    const number = phone();
    const byPhone = await admin.createUser({ phone: number, password: "secret-1", phone_confirm: true });
    expect(byPhone.error).toBeNull();
    expect(byPhone.data.user).toMatchObject({
      phone: number.slice(1),
      email: "",
      app_metadata: { provider: "phone", providers: ["phone"] },
    });
    expect(byPhone.data.user?.phone_confirmed_at).toBeTruthy();
    expect((await server.client().signInWithPassword({ phone: number, password: "secret-1" })).error).toBeNull();

    const address = email("unconfirmed");
    const created = await admin.createUser({ email: address, password: "secret-1" });
    expect(created.data.user?.email_confirmed_at).toBeUndefined();
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error?.code).toBe("email_not_confirmed");
  });

  it("imports bcrypt and argon2 password hashes", async () => {
    const fromBcrypt = email("bcrypt");
    const bcrypt = await admin.createUser({
      email: fromBcrypt,
      password_hash: await bcryptHash("imported-1", { cost: 4 }),
      email_confirm: true,
    });
    expect(bcrypt.error).toBeNull();
    expect((await server.client().signInWithPassword({ email: fromBcrypt, password: "imported-1" })).error).toBeNull();

    for (const algorithm of [1, 2]) {
      const address = email(`argon2-${algorithm}`);
      const hashed = await argon2Hash("imported-2", { algorithm, memoryCost: 1024, timeCost: 1 });
      expect(hashed.startsWith(algorithm === 1 ? "$argon2i$" : "$argon2id$")).toBe(true);
      const created = await admin.createUser({ email: address, password_hash: hashed, email_confirm: true });
      expect(created.error).toBeNull();
      expect((await server.client().signInWithPassword({ email: address, password: "imported-2" })).error).toBeNull();
      expect((await server.client().signInWithPassword({ email: address, password: "wrong-one" })).error?.code).toBe("invalid_credentials");
    }

    const both = await admin.createUser({ email: email(), password: "secret-1", password_hash: await bcryptHash("x", { cost: 4 }) });
    expect({ status: both.error?.status, code: both.error?.code, message: both.error?.message }).toEqual({
      status: 400,
      code: "validation_failed",
      message: "Only a password or a password hash should be provided",
    });
    const garbage = await admin.createUser({ email: email(), password_hash: "not-a-hash" });
    expect(garbage.error?.code).toBe("validation_failed");
    const argon2d = await admin.createUser({ email: email(), password_hash: "$argon2d$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g" });
    expect(argon2d.error?.code).toBe("validation_failed");
  });

  it("answers email_exists, never a 500, when two creates race for one address", async () => {
    const address = email();
    const results = await Promise.all(Array.from({ length: 4 }, () => admin.createUser({ email: address, password: "secret-1" })));
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    for (const r of results.filter((r) => r.error !== null)) {
      expect({ status: r.error?.status, code: r.error?.code }).toEqual({ status: 422, code: "email_exists" });
    }
  });

  it("refuses a duplicate email or phone, a user without either, and a bad email", async () => {
    const { address } = await confirmedUser();
    const duplicate = await admin.createUser({ email: address, password: "secret-1" });
    expect({ status: duplicate.error?.status, code: duplicate.error?.code }).toEqual({ status: 422, code: "email_exists" });
    const number = phone();
    await admin.createUser({ phone: number });
    expect((await admin.createUser({ phone: number })).error?.code).toBe("phone_exists");
    const empty = await admin.createUser({ password: "secret-1" });
    expect({ status: empty.error?.status, code: empty.error?.code, message: empty.error?.message }).toEqual({
      status: 400,
      code: "validation_failed",
      message: "Cannot create a user without either an email or phone",
    });
    expect((await admin.createUser({ email: "not-an-email" })).error?.message).toBe("Unable to validate email address: invalid format");
  });

  it("creates under a chosen id (body id, or POST /admin/users/{id})", async () => {
    const id = randomUUID();
    const created = await admin.createUser({ id, email: email("chosen") } as never);
    expect(created.data.user?.id).toBe(id);
    const other = randomUUID();
    const response = await adminRequest(server, `/admin/users/${other}`, {
      method: "POST",
      body: JSON.stringify({ email: email("path") }),
    });
    expect(response.status).toBe(200);
    expect((await readJson(response)).id).toBe(other);
    const bad = await admin.createUser({ id: "nope", email: email() } as never);
    expect(bad.error?.message).toBe("ID must conform to the uuid v4 format");
  });

  it("lists users page by page with X-Total-Count and Link, newest first", async () => {
    const aud = `list-${randomUUID().slice(0, 8)}`;
    const scoped = await adminApi(server, { "X-JWT-AUD": aud });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data, error } = await scoped.createUser({ email: email(`page${i}`) });
      if (error || !data.user) throw error ?? new Error("no user");
      expect(data.user.aud).toBe(aud);
      ids.push(data.user.id);
    }
    const first = await scoped.listUsers({ page: 1, perPage: 2 });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ aud, total: 5, nextPage: 2, lastPage: 3 });
    expect(first.data.users.map((u) => u.id)).toEqual([ids[4], ids[3]]);
    expect(first.data.users[0]?.identities?.[0]?.provider).toBe("email");
    const last = await scoped.listUsers({ page: 3, perPage: 2 });
    expect(last.data.users.map((u) => u.id)).toEqual([ids[0]]);
    expect(last.data).toMatchObject({ nextPage: null, lastPage: 3, total: 5 });

    const raw = await adminRequest(server, "/admin/users?per_page=2&page=2", { headers: { "x-jwt-aud": aud } });
    expect(raw.headers.get("x-total-count")).toBe("5");
    expect(raw.headers.get("link")).toBe('</admin/users?page=3&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last"');
    const ascending = await adminRequest(server, "/admin/users?sort=created_at%20asc&per_page=1", { headers: { "x-jwt-aud": aud } });
    expect((await readJson<{ users: { id: string }[] }>(ascending)).users.map((u) => u.id)).toEqual([ids[0]]);
    const filtered = await adminRequest(server, "/admin/users?filter=page3", { headers: { "x-jwt-aud": aud } });
    expect((await readJson<{ users: { id: string }[] }>(filtered)).users.map((u) => u.id)).toEqual([ids[3]]);

    const bad = await adminRequest(server, "/admin/users?page=-1");
    expect(bad.status).toBe(400);
    expect(await readJson(bad)).toMatchObject({ code: "validation_failed" });
    expect((await adminRequest(server, "/admin/users?sort=email")).status).toBe(400);
  });

  it("reads a user by id; an unknown id is 404 user_not_found, a malformed one 404 validation_failed", async () => {
    const { user } = await confirmedUser();
    const { data, error } = await admin.getUserById(user.id);
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: user.id, email: user.email });
    const unknown = await admin.getUserById(randomUUID());
    expect({ status: unknown.error?.status, code: unknown.error?.code, message: unknown.error?.message }).toEqual({
      status: 404,
      code: "user_not_found",
      message: "User not found",
    });
    const malformed = await adminRequest(server, "/admin/users/not-a-uuid");
    expect(malformed.status).toBe(404);
    expect(await readJson(malformed)).toEqual({ code: "validation_failed", message: "user_id must be an UUID" });
  });

  it("updates email, metadata (null removes a key), role and password; a new password ends every session", async () => {
    const { user, password } = await confirmedUser();
    const session = await server.client().signInWithPassword({ email: user.email as string, password });
    await admin.updateUserById(user.id, { user_metadata: { a: 1, b: 2 }, app_metadata: { tier: "gold" } });
    const newAddress = email("renamed");
    const { data, error } = await admin.updateUserById(user.id, {
      email: newAddress,
      user_metadata: { b: null, c: 3 },
      role: "reviewer",
      password: "another-2",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: newAddress, role: "reviewer", app_metadata: { tier: "gold" } });
    expect(data.user?.user_metadata).toMatchObject({ a: 1, c: 3 });
    expect(data.user?.user_metadata).not.toHaveProperty("b");
    expect(data.user?.identities?.[0]?.identity_data).toMatchObject({ email: newAddress });
    const refresh = await server.client().refreshSession({ refresh_token: session.data.session?.refresh_token as string });
    expect(refresh.error?.code).toBe("refresh_token_not_found");
    expect((await server.client().signInWithPassword({ email: newAddress, password: "another-2" })).error).toBeNull();
    const weak = await admin.updateUserById(user.id, { password: "abc" });
    expect(weak.error?.code).toBe("weak_password");
    const { address: taken } = await confirmedUser();
    expect((await admin.updateUserById(user.id, { email: taken })).error?.code).toBe("email_exists");
    expect((await admin.updateUserById(randomUUID(), { role: "x" })).error?.code).toBe("user_not_found");
  });

  it("confirms an email and a phone by update", async () => {
    const address = email("later");
    const created = await admin.createUser({ email: address, password: "secret-1" });
    const number = phone();
    const { data } = await admin.updateUserById(created.data.user?.id as string, {
      email_confirm: true,
      phone: number,
      phone_confirm: true,
    });
    expect(data.user?.email_confirmed_at).toBeTruthy();
    expect(data.user?.phone).toBe(number.slice(1));
    expect(data.user?.phone_confirmed_at).toBeTruthy();
    expect(data.user?.identities?.map((i) => i.provider).sort()).toEqual(["email", "phone"]);
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error).toBeNull();
  });

  it("bans: sign-in, refresh and the access token are refused with user_banned; `none` lifts the ban", async () => {
    const { user, address, password } = await confirmedUser();
    const client = server.client();
    const { data: signedIn } = await client.signInWithPassword({ email: address, password });
    const session = signedIn.session;
    if (!session) throw new Error("no session");

    const banned = await admin.updateUserById(user.id, { ban_duration: "24h" });
    expect(banned.error).toBeNull();
    const until = Date.parse(banned.data.user?.banned_until as string);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3_600_000);

    const signIn = await server.client().signInWithPassword({ email: address, password });
    expect({ status: signIn.error?.status, code: signIn.error?.code }).toEqual({ status: 400, code: "user_banned" });
    const refresh = await server.client().refreshSession({ refresh_token: session.refresh_token });
    expect({ status: refresh.error?.status, code: refresh.error?.code }).toEqual({ status: 400, code: "user_banned" });
    const me = await server.request("/user", {
      headers: { authorization: `Bearer ${session.access_token}`, "x-supabase-api-version": "2024-01-01" },
    });
    expect(me.status).toBe(403);
    expect(await readJson(me)).toEqual({ code: "user_banned", message: "User is banned" });

    const lifted = await admin.updateUserById(user.id, { ban_duration: "none" });
    expect(lifted.data.user).not.toHaveProperty("banned_until");
    expect((await server.client().signInWithPassword({ email: address, password })).error).toBeNull();
    expect((await server.client().refreshSession({ refresh_token: session.refresh_token })).error).toBeNull();

    const bad = await admin.updateUserById(user.id, { ban_duration: "1d" });
    expect({ status: bad.error?.status, code: bad.error?.code, message: bad.error?.message }).toEqual({
      status: 400,
      code: "validation_failed",
      message: 'invalid format for ban duration: time: unknown unit "d" in duration "1d"',
    });
    const createdBanned = await admin.createUser({
      email: email("banned"),
      password: "secret-1",
      email_confirm: true,
      ban_duration: "1h30m",
    });
    expect(createdBanned.data.user?.banned_until).toBeTruthy();
    const expired = await admin.updateUserById(user.id, { ban_duration: "1ms" });
    expect(expired.error).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await server.client().signInWithPassword({ email: address, password })).error).toBeNull();
  });

  it("deletes a user outright, sessions and identities with it", async () => {
    const { user, address, password } = await confirmedUser();
    await server.client().signInWithPassword({ email: address, password });
    const { error } = await admin.deleteUser(user.id);
    expect(error).toBeNull();
    expect((await admin.getUserById(user.id)).error?.code).toBe("user_not_found");
    const left = await one<{ identities: number; sessions: number }>(
      server.db,
      sql`SELECT (SELECT count(*)::int FROM ${server.table("identities")} WHERE user_id = ${user.id}) AS identities,
                 (SELECT count(*)::int FROM ${server.table("sessions")} WHERE user_id = ${user.id}) AS sessions`,
    );
    expect(left).toEqual({ identities: 0, sessions: 0 });
    expect((await admin.deleteUser(user.id)).error?.status).toBe(404);
  });

  it("soft-deletes: the row stays with deleted_at and obfuscated addresses; the user can no longer sign in", async () => {
    const { user, address, password } = await confirmedUser();
    const { data: signedIn } = await server.client().signInWithPassword({ email: address, password });
    expect((await admin.deleteUser(user.id, true)).error).toBeNull();
    const { data } = await admin.getUserById(user.id);
    expect(data.user?.deleted_at).toBeTruthy();
    expect(data.user?.email).not.toBe(address);
    expect(data.user?.user_metadata).toEqual({});
    expect(data.user?.identities?.[0]?.identity_data).toEqual({});
    expect((await server.client().signInWithPassword({ email: address, password })).error?.code).toBe("invalid_credentials");
    expect((await server.client().refreshSession({ refresh_token: signedIn.session?.refresh_token as string })).error?.code).toBe(
      "refresh_token_not_found",
    );
    expect((await admin.deleteUser(user.id, true)).error).toBeNull();
    // The address is free again.
    expect((await admin.createUser({ email: address })).error).toBeNull();
  });

  it("refuses tokens without an admin role: 401 without a token, 403 bad_jwt or not_admin otherwise", async () => {
    const { address, password } = await confirmedUser();
    const { data } = await server.client().signInWithPassword({ email: address, password });
    const asUser = await adminApi(server, {}, data.session?.access_token);
    const refused = await asUser.listUsers();
    expect({ status: refused.error?.status, code: refused.error?.code, message: refused.error?.message }).toEqual({
      status: 403,
      code: "not_admin",
      message: "User not allowed",
    });
    expect((await (await adminApi(server, {}, await adminToken({ role: "anon" }))).createUser({ email: email() })).error?.code).toBe(
      "not_admin",
    );
    const none = await server.request("/admin/users", { headers: { "x-supabase-api-version": "2024-01-01" } });
    expect(none.status).toBe(401);
    expect(await readJson(none)).toMatchObject({ code: "no_authorization" });
    const forged = await adminRequest(server, "/admin/users", {}, `${await adminToken()}x`);
    expect(forged.status).toBe(403);
    expect(await readJson(forged)).toMatchObject({ code: "bad_jwt" });
    // supabase_admin with a non-UUID sub and no exp, as auth-js's own tests mint it.
    const legacy = await adminApi(server, {}, await adminToken({ sub: "1234567890", role: "supabase_admin" }));
    expect((await legacy.listUsers({ page: 1, perPage: 1 })).error).toBeNull();
  });
});

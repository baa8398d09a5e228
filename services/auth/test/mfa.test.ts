/**
 * TOTP multi-factor authentication through @supabase/auth-js's `mfa` API, the codes computed from
 * the secret the server returns (otpauth, as an authenticator app would): enrolment, challenge
 * and verify, the aal2 session, the rules that require aal2, replayed, wrong and expired codes,
 * challenges from another address, limits and switches, and the admin factor API.
 */
import { sql } from "@platform/core";
import type { GoTrueClient } from "@supabase/auth-js";
import { decodeJwt } from "jose";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken } from "./support/admin.js";
import { backends, email, one, openTestDatabase, readJson, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

/** The code an authenticator shows for `secret`, `steps` periods from now. */
const totpCode = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({
    timestamp: Date.now() + steps * 30_000,
  });

const V2 = { "x-supabase-api-version": "2024-01-01", "content-type": "application/json" };

describe.each(backends)("MFA with TOTP on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let limited: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, {
      AUTH_RATE_LIMIT_HEADER: "x-client-ip",
      AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED: "true",
      AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED: "true",
    });
    limited = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "mfa_limited",
      AUTH_MFA_MAX_ENROLLED_FACTORS: "2",
      AUTH_MFA_TOTP_VERIFY_ENABLED: "false",
    });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), limited?.close()]);
    await database?.dispose();
  });

  async function signedIn(target = server) {
    const address = email("mfa");
    const client = target.client();
    const { data, error } = await client.signUp({ email: address, password: "secret-1" });
    if (error || !data.session) throw error ?? new Error("no session");
    return { client, address, userId: data.session.user.id };
  }

  async function enrolled(client: GoTrueClient, friendlyName?: string) {
    const { data, error } = await client.mfa.enroll({ factorType: "totp", ...(friendlyName ? { friendlyName } : {}) });
    if (error || !data) throw error ?? new Error("no factor");
    return data;
  }

  /** A user with a verified TOTP factor, its client at aal2. */
  async function withVerifiedFactor() {
    const user = await signedIn();
    const factor = await enrolled(user.client, "phone app");
    const { error } = await user.client.mfa.challengeAndVerify({ factorId: factor.id, code: totpCode(factor.totp.secret) });
    expect(error).toBeNull();
    return { ...user, factorId: factor.id, secret: factor.totp.secret };
  }

  const accessToken = async (client: GoTrueClient) => (await client.getSession()).data.session?.access_token as string;

  function call(path: string, token: string, init: { method?: string; body?: unknown; ip?: string } = {}) {
    return server.request(path, {
      method: init.method ?? "POST",
      headers: { ...V2, authorization: `Bearer ${token}`, ...(init.ip ? { "x-client-ip": init.ip } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  }

  it("enrols a TOTP factor as GoTrue does: a 32-character secret, its otpauth URI and an SVG QR code", async () => {
    const { client, address } = await signedIn();
    const factor = await enrolled(client, "Authenticator");
    expect(factor).toMatchObject({ type: "totp", friendly_name: "Authenticator" });
    expect(factor.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(factor.totp.uri).toBe(
      `otpauth://totp/localhost:3000:${address}?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret=${factor.totp.secret}`,
    );
    // auth-js turns the server's raw SVG into a data URI.
    expect(factor.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg /);
    const { data: factors } = await client.mfa.listFactors();
    expect(factors?.all).toEqual([expect.objectContaining({ id: factor.id, status: "unverified", factor_type: "totp" })]);
    expect(factors?.totp).toEqual([]);
  });

  it("verifies a code: the session becomes aal2, amr lists totp first, the refresh token is replaced", async () => {
    const { client, address, userId } = await signedIn();
    const other = server.client();
    await other.signInWithPassword({ email: address, password: "secret-1" });
    const before = (await client.getSession()).data.session;
    const factor = await enrolled(client);
    const { data: challenge } = await client.mfa.challenge({ factorId: factor.id });
    expect(challenge?.expires_at).toBeGreaterThan(Date.now() / 1000 + 290);
    const { data, error } = await client.mfa.verify({
      factorId: factor.id,
      challengeId: challenge?.id as string,
      code: totpCode(factor.totp.secret),
    });
    expect(error).toBeNull();
    const claims = decodeJwt(data?.access_token as string) as { aal: string; amr: { method: string }[] };
    expect(claims.aal).toBe("aal2");
    expect(claims.amr.map((entry) => entry.method)).toEqual(["totp", "password"]);
    expect(data?.refresh_token).not.toBe(before?.refresh_token);
    expect(data?.user.factors).toEqual([expect.objectContaining({ id: factor.id, status: "verified" })]);
    const { data: level } = await client.mfa.getAuthenticatorAssuranceLevel();
    expect(level).toMatchObject({ currentLevel: "aal2", nextLevel: "aal2" });
    // The aal1 refresh token, even within the reuse interval, does not reach the aal2 session.
    const reused = await server.request("/token?grant_type=refresh_token", {
      method: "POST",
      headers: V2,
      body: JSON.stringify({ refresh_token: before?.refresh_token }),
    });
    expect(reused.status).toBe(400);
    // The user's other aal1 session has ended.
    const { error: otherError } = await other.refreshSession();
    expect(otherError?.message).toMatch(/Refresh Token/);
    // A refresh keeps the aal2 level.
    const { data: refreshed } = await client.refreshSession();
    expect(decodeJwt(refreshed.session?.access_token as string).aal).toBe("aal2");
    const notice = server.outbox.find((m) => m.kind === "mfa_factor_enrolled_notification" && m.to === address);
    expect(notice).toMatchObject({ factorType: "totp", userId });
  });

  it("refuses wrong, replayed, empty and unknown codes and challenges as GoTrue does", async () => {
    const { client, factorId, secret } = await withVerifiedFactor();
    const token = await accessToken(client);
    const challenge = async () => readJson<{ id: string }>(await call(`/factors/${factorId}/challenge`, token));
    const verify = async (challengeId: string, code: string) =>
      call(`/factors/${factorId}/verify`, token, { body: { challenge_id: challengeId, code } });
    const wrong = await verify((await challenge()).id, totpCode(secret, 5));
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toEqual({ code: "mfa_verification_failed", message: "Invalid TOTP code entered" });
    // The code that raised the session is not accepted again, on a new challenge either.
    const replayed = await verify((await challenge()).id, totpCode(secret));
    expect(replayed.status).toBe(422);
    expect(await replayed.json()).toMatchObject({ code: "mfa_verification_failed" });
    const empty = await verify((await challenge()).id, "");
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ code: "validation_failed", message: "Code needs to be non-empty" });
    const unknown = await verify("00000000-0000-4000-8000-000000000000", totpCode(secret, 1));
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toEqual({ code: "mfa_factor_not_found", message: "MFA factor with the provided challenge ID not found" });
    // A used challenge cannot be verified again.
    const used = (await challenge()).id;
    expect((await verify(used, totpCode(secret, 1))).status).toBe(200);
    const again = await call(`/factors/${factorId}/verify`, token, { body: { challenge_id: used, code: totpCode(secret, -1) } });
    expect(again.status).toBe(422);
    expect(await again.json()).toMatchObject({ code: "mfa_ip_address_mismatch" });
  });

  it("verifies only from the challenge's address, and not after the challenge expired", async () => {
    const { client } = await signedIn();
    const factor = await enrolled(client);
    const token = await accessToken(client);
    const made = await readJson<{ id: string }>(await call(`/factors/${factor.id}/challenge`, token, { ip: "203.0.113.7" }));
    const elsewhere = await call(`/factors/${factor.id}/verify`, token, {
      ip: "198.51.100.9",
      body: { challenge_id: made.id, code: totpCode(factor.totp.secret) },
    });
    expect(elsewhere.status).toBe(422);
    expect(await elsewhere.json()).toEqual({ code: "mfa_ip_address_mismatch", message: "Challenge and verify IP addresses mismatch." });
    await database.db.query(
      sql`UPDATE ${server.table("mfa_challenges")} SET created_at = now() - interval '301 seconds' WHERE id = ${made.id}`,
    );
    const late = await call(`/factors/${factor.id}/verify`, token, {
      ip: "203.0.113.7",
      body: { challenge_id: made.id, code: totpCode(factor.totp.secret) },
    });
    expect(late.status).toBe(422);
    expect(await late.json()).toMatchObject({ code: "mfa_challenge_expired" });
    expect(await one(database.db, sql`SELECT count(*)::int AS n FROM ${server.table("mfa_challenges")} WHERE id = ${made.id}`)).toEqual({
      n: 0,
    });
  });

  it("lets one of two concurrent verifications of a challenge through", async () => {
    const { client } = await signedIn();
    const factor = await enrolled(client);
    const token = await accessToken(client);
    const made = await readJson<{ id: string }>(await call(`/factors/${factor.id}/challenge`, token));
    const body = { challenge_id: made.id, code: totpCode(factor.totp.secret) };
    const answers = await Promise.all([1, 2].map(() => call(`/factors/${factor.id}/verify`, token, { body })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  it("asks for aal2 where GoTrue does once a factor is verified", async () => {
    const { address, factorId, secret } = await withVerifiedFactor();
    const client = server.client();
    const { data: signIn } = await client.signInWithPassword({ email: address, password: "secret-1" });
    expect(signIn.session?.user.factors).toHaveLength(1);
    const { data: level } = await client.mfa.getAuthenticatorAssuranceLevel();
    expect(level).toMatchObject({ currentLevel: "aal1", nextLevel: "aal2" });
    const token = signIn.session?.access_token as string;
    const update = await call("/user", token, { method: "PUT", body: { password: "secret-2" } });
    expect(update.status).toBe(401);
    expect(await update.json()).toEqual({
      code: "insufficient_aal",
      message: "AAL2 session is required to update email or password when MFA is enabled.",
    });
    const metadata = await call("/user", token, { method: "PUT", body: { data: { theme: "dark" } } });
    expect(metadata.status).toBe(200);
    const enroll = await call("/factors", token, { body: { factor_type: "totp", friendly_name: "second" } });
    expect(enroll.status).toBe(403);
    expect(await enroll.json()).toEqual({ code: "insufficient_aal", message: "AAL2 required to enroll a new factor" });
    const unenroll = await call(`/factors/${factorId}`, token, { method: "DELETE" });
    expect(unenroll.status).toBe(422);
    expect(await unenroll.json()).toEqual({ code: "insufficient_aal", message: "AAL2 required to unenroll verified factor" });
    const { error } = await client.mfa.challengeAndVerify({ factorId, code: totpCode(secret, 1) });
    expect(error).toBeNull();
    expect((await client.updateUser({ password: "secret-2" })).error).toBeNull();
  });

  it("unenrols a factor: its sessions go back to aal1 and the user is told", async () => {
    const { client, address, factorId } = await withVerifiedFactor();
    const { data, error } = await client.mfa.unenroll({ factorId });
    expect(error).toBeNull();
    expect(data).toEqual({ id: factorId });
    const { data: refreshed } = await client.refreshSession();
    const claims = decodeJwt(refreshed.session?.access_token as string) as { aal: string; amr: { method: string }[] };
    expect(claims.aal).toBe("aal1");
    expect(claims.amr.map((entry) => entry.method)).toEqual(["password"]);
    expect(refreshed.session?.user.factors).toBeUndefined();
    expect(server.outbox.some((m) => m.kind === "mfa_factor_unenrolled_notification" && m.to === address)).toBe(true);
  });

  it("answers GoTrue's errors for bad enrolments, anonymous users and missing tokens", async () => {
    const { client } = await signedIn();
    const token = await accessToken(client);
    const expectError = async (response: Response, status: number, body: unknown) => {
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual(body);
    };
    await expectError(await call("/factors", token, { body: { factor_type: "sms" } }), 400, {
      code: "validation_failed",
      message: "factor_type needs to be totp, phone, or webauthn",
    });
    await expectError(await call("/factors", token, { body: { factor_type: "webauthn" } }), 422, {
      code: "mfa_webauthn_enroll_not_enabled",
      message: "MFA enroll is disabled for WebAuthn",
    });
    await expectError(await call("/factors", token, { body: { factor_type: "phone", phone: "+15551234567" } }), 422, {
      code: "mfa_phone_enroll_not_enabled",
      message: "MFA enroll is disabled for Phone",
    });
    await enrolled(client, "same");
    await expectError(await call("/factors", token, { body: { factor_type: "totp", friendly_name: "same" } }), 422, {
      code: "mfa_factor_name_conflict",
      message: 'A factor with the friendly name "same" for this user already exists',
    });
    await expectError(await call("/factors/not-a-uuid/challenge", token), 404, {
      code: "validation_failed",
      message: "factor_id must be an UUID",
    });
    await expectError(await call("/factors/00000000-0000-4000-8000-000000000000/challenge", token), 404, {
      code: "mfa_factor_not_found",
      message: "Factor not found",
    });
    const anonymous = server.client();
    const { data: anon } = await anonymous.signInAnonymously();
    await expectError(await call("/factors", anon.session?.access_token as string, { body: { factor_type: "totp" } }), 403, {
      code: "no_authorization",
      message: "Anonymous user not allowed to perform these actions",
    });
    const { error } = await server.client().mfa.enroll({ factorType: "totp" });
    expect(error?.message).toContain("Bearer token");
  });

  it("keeps to MFA_MAX_ENROLLED_FACTORS and the verify switch", async () => {
    const { client } = await signedIn(limited);
    const first = await enrolled(client, "one");
    await enrolled(client, "two");
    const { error } = await client.mfa.enroll({ factorType: "totp", friendlyName: "three" });
    expect(error).toMatchObject({ code: "too_many_enrolled_mfa_factors", status: 422 });
    const { error: challengeError } = await client.mfa.challenge({ factorId: first.id });
    expect(challengeError).toMatchObject({ code: "mfa_totp_verify_not_enabled", message: "MFA verification is disabled for TOTP" });
  });

  it("answers odd values in every MFA field with a client error or success, never a 5xx", async () => {
    const { client, userId, factorId } = await withVerifiedFactor();
    const token = await accessToken(client);
    const admin = await adminToken();
    const values: unknown[] = [null, -1, 1e308, true, "", "a".repeat(3000), [1], { a: 1 }, "\u0000", "😀", "not-a-uuid", "+1 555 0100"];
    const fields = ["factor_type", "friendly_name", "issuer", "phone", "challenge_id", "code", "channel"];
    const routes: [string, string, string][] = [
      ["POST", "/factors", token],
      ["POST", `/factors/${factorId}/challenge`, token],
      ["POST", `/factors/${factorId}/verify`, token],
      ["PUT", `/admin/users/${userId}/factors/${factorId}`, admin],
    ];
    const failures: string[] = [];
    for (const [method, path, bearer] of routes) {
      const bodies = [
        "not json",
        "[]",
        "null",
        ...fields.flatMap((field) => values.map((value) => JSON.stringify({ factor_type: "totp", [field]: value }))),
      ];
      for (const body of bodies) {
        const response = await server.request(path, { method, headers: { ...V2, authorization: `Bearer ${bearer}` }, body });
        const text = await response.text();
        if (response.status >= 500) failures.push(`${response.status} ${method} ${path} ${body.slice(0, 60)} => ${text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it("lists, renames and deletes a user's factors through the admin API", async () => {
    const { client, userId, factorId } = await withVerifiedFactor();
    const admin = { ...V2, authorization: `Bearer ${await adminToken()}` };
    const listed = await readJson<unknown[]>(await server.request(`/admin/users/${userId}/factors`, { headers: admin }));
    expect(listed).toEqual([
      expect.objectContaining({ id: factorId, status: "verified", factor_type: "totp", friendly_name: "phone app" }),
    ]);
    expect(JSON.stringify(listed)).not.toContain("secret");
    const renamed = await server.request(`/admin/users/${userId}/factors/${factorId}`, {
      method: "PUT",
      headers: admin,
      body: JSON.stringify({ friendly_name: "work phone" }),
    });
    expect(await readJson(renamed)).toMatchObject({ id: factorId, friendly_name: "work phone" });
    const notAdmin = await server.request(`/admin/users/${userId}/factors`, {
      headers: { ...V2, authorization: `Bearer ${await accessToken(client)}` },
    });
    expect(notAdmin.status).toBe(403);
    const deleted = await server.request(`/admin/users/${userId}/factors/${factorId}`, { method: "DELETE", headers: admin });
    expect(await readJson(deleted)).toMatchObject({ id: factorId });
    const { data } = await client.refreshSession();
    expect(decodeJwt(data.session?.access_token as string).aal).toBe("aal1");
    const unknown = await server.request("/admin/users/00000000-0000-4000-8000-000000000000/factors", { headers: admin });
    expect(unknown.status).toBe(404);
  });
});

/**
 * Passwordless sign-in by email over a real SMTP server in the test process, driven through
 * @supabase/auth-js: signInWithOtp (POST /otp) and POST /magiclink for new and known addresses,
 * the mailed link (GET /verify) and code (verifyOtp type `email` / `magiclink`), each used once;
 * `create_user: false`; and the PKCE flow (flowType 'pkce': a `pkce_` link, `?code=` redirect,
 * exchangeCodeForSession) for magic links, recovery and sign-up confirmations.
 */
import { sql } from "@platform/core";
import { type GoTrueAdminApi, GoTrueClient } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import { backends, email, one, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";
import { code, deliveringTo, startSmtpServer, type TestSmtpServer, tokenLink, tokenOf, whileRefusing } from "./support/smtp.js";

/** Every code verifier a PKCE client stored, newest last (see the email-change test). */
const verifiers: string[] = [];

/** A browser-like client: PKCE flow, its verifier kept in memory between the request and the exchange. */
function pkceClient(server: TestServer): GoTrueClient {
  const items = new Map<string, string>();
  return new GoTrueClient({
    url: server.url,
    flowType: "pkce",
    autoRefreshToken: false,
    persistSession: true,
    storageKey: `pkce-${Math.random()}`,
    storage: {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => {
        // auth-js stores `<verifier>[/recovery]` as JSON.
        if (key.endsWith("-code-verifier")) verifiers.push((JSON.parse(value) as string).split("/")[0] as string);
        items.set(key, value);
      },
      removeItem: (key: string) => void items.delete(key),
    },
  });
}

describe.each(backends)("email one-time passwords and magic links on %s", (backend) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    smtp = await startSmtpServer();
    server = await startTestServer(database.db, { ...deliveringTo(smtp), AUTH_SMTP_MAX_FREQUENCY: "900s" }, { deliver: true });
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    await database?.dispose();
  });

  const post = (path: string, body: unknown) =>
    server.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const userRow = (address: string) =>
    one<{ id: string; email_confirmed_at: string | null; encrypted_password: string | null; raw_user_meta_data: Record<string, unknown> }>(
      database.db,
      sql`SELECT id, email_confirmed_at, encrypted_password, raw_user_meta_data FROM ${server.table("users")} WHERE email = ${address}`,
    );
  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address)).length;
  const backdateRecovery = (userId: string) =>
    database.db.query(sql`UPDATE ${server.table("users")} SET recovery_sent_at = now() - interval '2 hours' WHERE id = ${userId}`);

  it("signs up a new address: the confirmation mail's code signs in (verifyOtp type email) and confirms it", async () => {
    const address = email("otpnew");
    const client = server.client();
    const sent = await client.signInWithOtp({ email: address, options: { data: { plan: "free" } } });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ user: null, session: null, messageId: undefined });
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Confirm Your Signup");
    const before = await userRow(address);
    expect(before.email_confirmed_at).toBeNull();
    // No password at all: nobody can sign in with one.
    expect(before.encrypted_password).toBeNull();
    expect(before.raw_user_meta_data).toMatchObject({ plan: "free" });

    const verified = await client.verifyOtp({ email: address, token: code(mail), type: "email" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    expect((await client.getUser()).data.user?.email).toBe(address);
    // Used once.
    expect((await server.client().verifyOtp({ email: address, token: code(mail), type: "email" })).error?.code).toBe("otp_expired");
  });

  it("mails a known address a magic link: the link (GET /verify) or the code signs in, once", async () => {
    const byLink = await createConfirmedUser(admin, "magiclink");
    expect(
      (await server.client().signInWithOtp({ email: byLink.address, options: { emailRedirectTo: "http://localhost:3000/in" } })).error,
    ).toBeNull();
    const mail = await smtp.next(byLink.address);
    expect(mail.subject).toBe("Your Magic Link");
    const link = tokenLink(mail);
    expect(link).toMatch(/^http:\/\/localhost:8081\/verify\?token=[0-9a-f]{56}&type=magiclink&redirect_to=http:\/\/localhost:3000\/in$/);
    const url = new URL(link);
    const opened = await server.request(`${url.pathname}${url.search}`, { redirect: "manual" });
    expect(opened.status).toBe(303);
    const location = opened.headers.get("location") as string;
    expect(location).toMatch(/^http:\/\/localhost:3000\/in#access_token=.*&type=magiclink$/);
    const again = await server.request(`${url.pathname}${url.search}`, { redirect: "manual" });
    expect(again.headers.get("location")).toContain("error_code=otp_expired");

    const byCode = await createConfirmedUser(admin, "magiccode");
    const response = await post("/magiclink", { email: byCode.address });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const codeMail = await smtp.next(byCode.address);
    expect(codeMail.subject).toBe("Your Magic Link");
    const client = server.client();
    const verified = await client.verifyOtp({ email: byCode.address, token: code(codeMail), type: "magiclink" });
    expect(verified.error).toBeNull();
    const claims = JSON.parse(Buffer.from((verified.data.session?.access_token ?? "").split(".")[1] as string, "base64url").toString());
    expect(claims.amr[0].method).toBe("otp");
  });

  it("create_user false: a known address gets its link, an unknown one the same answer and nothing", async () => {
    const known = await createConfirmedUser(admin, "nocreate");
    const unknown = email("nocreate-unknown");
    const answers = [];
    for (const address of [known.address, unknown]) {
      const response = await post("/otp", { email: address, create_user: false });
      answers.push({ status: response.status, body: await response.json() });
    }
    expect(answers[0]).toEqual({ status: 200, body: {} });
    expect(answers[1]).toEqual(answers[0]);
    expect((await smtp.next(known.address)).subject).toBe("Your Magic Link");
    expect(mailsTo(unknown)).toBe(0);
    expect((await database.db.query(sql`SELECT 1 FROM ${server.table("users")} WHERE email = ${unknown}`)).rows).toHaveLength(0);
  });

  it("sends no second link within the minute (GoTrue's 429, or {} with SECURITY_SILENT_SEND_WINDOW); the first link stays valid", async () => {
    const { address, user } = await createConfirmedUser(admin, "otptwice");
    expect((await server.client().signInWithOtp({ email: address })).error).toBeNull();
    const first = await smtp.next(address);
    const again = await post("/otp", { email: address });
    expect(again.status).toBe(429);
    expect(await again.json()).toEqual({
      code: 429,
      error_code: "over_email_send_rate_limit",
      msg: expect.stringMatching(/^For security purposes, you can only request this after \d+ seconds\.$/),
    });
    expect((await post("/magiclink", { email: address })).status).toBe(429);
    const silent = await startTestServer(
      database.db,
      { ...deliveringTo(smtp), AUTH_SECURITY_SILENT_SEND_WINDOW: "true" },
      { deliver: true },
    );
    try {
      const quiet = await silent.request("/otp", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: address }),
      });
      expect(quiet.status).toBe(200);
      expect(await quiet.json()).toEqual({});
    } finally {
      await silent.close();
    }
    expect(mailsTo(address)).toBe(1);
    await backdateRecovery(user.id);
    expect((await server.client().signInWithOtp({ email: address })).error).toBeNull();
    const second = await smtp.next(address);
    expect(tokenOf(tokenLink(second))).not.toBe(tokenOf(tokenLink(first)));
    expect((await server.client().verifyOtp({ email: address, token: code(first), type: "email" })).error?.code).toBe("otp_expired");
    expect((await server.client().verifyOtp({ email: address, token: code(second), type: "email" })).error).toBeNull();
  });

  it("concurrent requests for one address send one link, with one audit entry and one token", async () => {
    const { address, user } = await createConfirmedUser(admin, "otprace");
    const answers = await Promise.all(Array.from({ length: 8 }, () => post("/otp", { email: address })));
    // One sends; the others find it sent, inside the window: GoTrue's 429.
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(7).fill(429)]);
    const mail = await smtp.next(address);
    // Every request has answered, so any second send would have been handed to SMTP by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mailsTo(address)).toBe(1);
    const audits = await database.db.query<{ count: string }>(
      sql`SELECT count(*)::text AS count FROM ${server.table("audit_log_entries")}
        WHERE payload->>'actor_id' = ${user.id} AND payload->>'action' = 'user_recovery_requested'`,
    );
    expect(audits.rows[0]?.count).toBe("1");
    const tokens = await database.db.query<{ token_hash: string }>(
      sql`SELECT token_hash FROM ${server.table("one_time_tokens")} WHERE user_id = ${user.id} AND token_type = 'recovery_token'`,
    );
    expect(tokens.rows).toEqual([{ token_hash: tokenOf(tokenLink(mail)) }]);
    expect((await server.client().verifyOtp({ email: address, token: code(mail), type: "email" })).error).toBeNull();
  });

  it("validates as GoTrue does", async () => {
    const cases: [string, unknown, number, string][] = [
      ["/otp", { email: "not-an-address" }, 400, "Unable to validate email address: invalid format"],
      ["/otp", { email: email("both"), phone: "+15551234567" }, 400, "Only an email address or phone number should be provided"],
      ["/otp", { email: email("channel"), channel: "sms" }, 400, "Channel should only be specified with Phone OTP"],
      ["/otp", {}, 400, "One of email or phone must be set"],
      [
        "/otp",
        { email: email("pkce"), code_challenge: "short", code_challenge_method: "s256" },
        400,
        "code challenge has to be between 43 and 128 characters",
      ],
      [
        "/otp",
        { email: email("pkce"), code_challenge: "x".repeat(43) },
        400,
        "PKCE flow requires code_challenge_method and code_challenge",
      ],
      ["/magiclink", {}, 422, "Password recovery requires an email"],
    ];
    for (const [path, body, status, msg] of cases) {
      const response = await post(path, body);
      expect({ path, body, status: response.status }).toEqual({ path, body, status });
      expect(await response.json()).toMatchObject({ error_code: "validation_failed", msg });
    }
    const badType = await post("/otp", { email: email("flag"), create_user: "yes" });
    expect(badType.status).toBe(400);
  });

  it("PKCE magic link: the link redirects with ?code=, exchangeCodeForSession signs in once", async () => {
    const { address } = await createConfirmedUser(admin, "pkcemagic");
    const client = pkceClient(server);
    expect((await client.signInWithOtp({ email: address, options: { emailRedirectTo: "http://localhost:3000/cb" } })).error).toBeNull();
    const link = tokenLink(await smtp.next(address));
    expect(tokenOf(link)).toMatch(/^pkce_[0-9a-f]{56}$/);
    const url = new URL(link);
    const opened = await server.request(`${url.pathname}${url.search}`, { redirect: "manual" });
    expect(opened.status).toBe(303);
    const location = new URL(opened.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe("http://localhost:3000/cb");
    const authCode = location.searchParams.get("code") as string;
    expect(authCode).toMatch(/^[0-9a-f-]{36}$/);
    expect(location.hash).toBe("");

    const exchanged = await client.exchangeCodeForSession(authCode);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.session?.user.email).toBe(address);
    const claims = JSON.parse(Buffer.from((exchanged.data.session?.access_token ?? "").split(".")[1] as string, "base64url").toString());
    expect(claims.amr[0].method).toBe("magiclink");

    const reused = await server.request("/token?grant_type=pkce", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ auth_code: authCode, code_verifier: "a".repeat(43) }),
    });
    expect(reused.status).toBe(404);
    expect(await reused.json()).toMatchObject({ error_code: "flow_state_not_found" });
  });

  it("PKCE refuses a wrong verifier, an expired flow and missing fields", async () => {
    const { address, user } = await createConfirmedUser(admin, "pkcebad");
    const client = pkceClient(server);
    await client.signInWithOtp({ email: address });
    const url = new URL(tokenLink(await smtp.next(address)));
    const authCode = new URL(
      (await server.request(`${url.pathname}${url.search}`, { redirect: "manual" })).headers.get("location") as string,
    ).searchParams.get("code") as string;
    const exchange = (body: unknown) =>
      server.request("/token?grant_type=pkce", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    const wrong = await exchange({ auth_code: authCode, code_verifier: "b".repeat(43) });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error_code: "bad_code_verifier" });
    const empty = await exchange({ auth_code: authCode });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "invalid request: both auth code and code verifier should be non-empty",
    });
    // A magic link's flow counts from when the code was issued; five minutes later it is gone.
    await database.db.query(
      sql`UPDATE ${server.table("flow_state")} SET auth_code_issued_at = now() - interval '301 seconds', created_at = now() - interval '1 hour' WHERE user_id = ${user.id}`,
    );
    const late = await client.exchangeCodeForSession(authCode);
    expect(late.error?.code).toBe("flow_state_expired");
  });

  it("PKCE password recovery and sign-up confirmation lead to ?code= and a session", async () => {
    const known = await createConfirmedUser(admin, "pkcerecover");
    const recovering = pkceClient(server);
    expect((await recovering.resetPasswordForEmail(known.address, { redirectTo: "http://localhost:3000/reset" })).error).toBeNull();
    const recoveryLink = new URL(tokenLink(await smtp.next(known.address)));
    expect(recoveryLink.searchParams.get("type")).toBe("recovery");
    const redirect = new URL(
      (await server.request(`${recoveryLink.pathname}${recoveryLink.search}`, { redirect: "manual" })).headers.get("location") as string,
    );
    const recovered = await recovering.exchangeCodeForSession(redirect.searchParams.get("code") as string);
    expect(recovered.error).toBeNull();
    expect((await recovering.updateUser({ password: "after-reset-1" })).error).toBeNull();

    const address = email("pkcesignup");
    const signingUp = pkceClient(server);
    expect((await signingUp.signUp({ email: address, password: "secret-123" })).error).toBeNull();
    const confirmLink = new URL(tokenLink(await smtp.next(address)));
    expect(confirmLink.searchParams.get("token")).toMatch(/^pkce_/);
    const confirmed = new URL(
      (await server.request(`${confirmLink.pathname}${confirmLink.search}`, { redirect: "manual" })).headers.get("location") as string,
    );
    const session = await signingUp.exchangeCodeForSession(confirmed.searchParams.get("code") as string);
    expect(session.error).toBeNull();
    expect(session.data.user?.email_confirmed_at).toBeTruthy();
  });

  it("PKCE email change: both addresses confirm, the second link redirects with ?code= for the new session", async () => {
    const { address, password } = await createConfirmedUser(admin, "pkcechange");
    const client = pkceClient(server);
    expect((await client.signInWithPassword({ email: address, password })).error).toBeNull();
    const next = email("pkcechanged");
    expect((await client.updateUser({ email: next }, { emailRedirectTo: "http://localhost:3000/changed" })).error).toBeNull();
    const open = async (to: string) => {
      const link = new URL(tokenLink(await smtp.next(to)));
      expect(link.searchParams.get("token")).toMatch(/^pkce_/);
      expect(link.searchParams.get("redirect_to")).toBe("http://localhost:3000/changed");
      return new URL((await server.request(`${link.pathname}${link.search}`, { redirect: "manual" })).headers.get("location") as string);
    };
    const half = await open(address);
    expect(half.searchParams.get("message")).toBe("Confirmation link accepted. Please proceed to confirm link sent to the other email");
    const done = await open(next);
    // auth-js (2.109) drops the verifier as soon as updateUser saves the updated session, so its
    // exchangeCodeForSession cannot finish an email change; the exchange is made as a browser
    // holding the verifier would make it.
    const exchanged = await server.request("/token?grant_type=pkce", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ auth_code: done.searchParams.get("code"), code_verifier: verifiers[verifiers.length - 1] }),
    });
    expect({ status: exchanged.status, body: exchanged.status === 200 ? "" : await exchanged.text() }).toEqual({ status: 200, body: "" });
    const session = (await exchanged.json()) as { user: { email: string }; access_token: string };
    expect(session.user.email).toBe(next);
    const claims = JSON.parse(Buffer.from(session.access_token.split(".")[1] as string, "base64url").toString());
    expect(claims.amr[0].method).toBe("email_change");
  });

  it("a PKCE link whose flow is gone redirects with the error in the query and the fragment", async () => {
    const { address, user } = await createConfirmedUser(admin, "pkcegone");
    await pkceClient(server).signInWithOtp({ email: address });
    const url = new URL(tokenLink(await smtp.next(address)));
    await database.db.query(sql`DELETE FROM ${server.table("flow_state")} WHERE user_id = ${user.id}`);
    const location = new URL(
      (await server.request(`${url.pathname}${url.search}`, { redirect: "manual" })).headers.get("location") as string,
    );
    expect(location.searchParams.get("error_code")).toBe("flow_state_not_found");
    expect(new URLSearchParams(location.hash.slice(1)).get("error_code")).toBe("flow_state_not_found");
    // The verification was undone with it: the recovery token is still there.
    const row = await one<{ recovery_token: string }>(
      database.db,
      sql`SELECT recovery_token FROM ${server.table("users")} WHERE id = ${user.id}`,
    );
    expect(row.recovery_token).toMatch(/^pkce_/);
  });

  it("an unsendable magic link answers GoTrue's 500 and leaves nothing behind", async () => {
    const { address, user } = await createConfirmedUser(admin, "otpfail");
    const response = await whileRefusing(smtp, () => post("/otp", { email: address }));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ msg: "Error sending magic link email" });
    const row = await one<{ recovery_token: string; recovery_sent_at: string | null }>(
      database.db,
      sql`SELECT recovery_token, recovery_sent_at FROM ${server.table("users")} WHERE id = ${user.id}`,
    );
    expect(row).toEqual({ recovery_token: "", recovery_sent_at: null });
  });

  it("answers known and unknown addresses in the same time (/recover, /otp with create_user false)", async () => {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const timed = async (path: string, body: unknown) => {
      const started = performance.now();
      const response = await post(path, body);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({});
      return performance.now() - started;
    };
    for (const [path, extra] of [
      ["/recover", {}],
      ["/otp", { create_user: false }],
    ] as const) {
      const users = [];
      for (let i = 0; i < 24; i++) users.push(await createConfirmedUser(admin, "timing"));
      // The first sends set how long answers are held.
      for (const user of users.slice(0, 8)) await timed(path, { email: user.address, ...extra });
      const known: number[] = [];
      const unknown: number[] = [];
      for (const user of users.slice(8)) {
        known.push(await timed(path, { email: user.address, ...extra }));
        unknown.push(await timed(path, { email: email("timing-unknown"), ...extra }));
      }
      // Within 5 ms on a quiet machine. Under the whole suite's parallel load every request slows
      // and varies, so there the medians must lie within the spread (interquartile range) of the
      // known address's own times: indistinguishable. Unpadded, an unknown address answers in a
      // small fraction of a known one's time, far outside that spread.
      const sorted = [...known].sort((a, b) => a - b);
      const spread = (sorted[Math.floor(sorted.length * 0.75)] as number) - (sorted[Math.floor(sorted.length * 0.25)] as number);
      const tolerance = Math.max(5, spread);
      const round = (values: number[]) => values.map((v) => Math.round(v));
      expect({
        path,
        difference: Math.abs(median(known) - median(unknown)) < tolerance,
        known: round(known),
        unknown: round(unknown),
      }).toEqual({
        path,
        difference: true,
        known: round(known),
        unknown: round(unknown),
      });
      for (const user of users) await smtp.next(user.address);
    }
  });

  it("a disabled magic link or email provider is refused", async () => {
    const off = await startTestServer(
      database.db,
      { ...deliveringTo(smtp), AUTH_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED: "false" },
      { deliver: true },
    );
    try {
      const response = await off.request("/magiclink", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: email("off") }),
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ error_code: "email_provider_disabled", msg: "Login with magic link is disabled" });
    } finally {
      await off.close();
    }
  });
});

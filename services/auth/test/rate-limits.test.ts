/**
 * GoTrue's rate limits on sending and on the email/phone endpoints, against real servers:
 * RATE_LIMIT_EMAIL_SENT / RATE_LIMIT_SMS_SENT (one bucket for all users, in memory or shared
 * through Redis; `N` per hour or `N/duration`; 0 refuses every mail), and the keyed request
 * limits RATE_LIMIT_VERIFY and RATE_LIMIT_OTP (per RATE_LIMIT_HEADER value, a bucket per route).
 */
import { randomUUID } from "node:crypto";
import { ConfigError, createLogger, sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuthConfig } from "../src/config.js";
import {
  createRequestLimiter,
  createSendBucket,
  memoryBurstBucket,
  memoryIntervalBucket,
  memoryRequestLimiter,
  requestBucket,
} from "../src/http/rate-limit.js";
import { createRouteLimits, registerRouteLimits } from "../src/http/route-limits.js";
import { adminApi, adminToken, createConfirmedUser } from "./support/admin.js";
import {
  BASE_ENV,
  backends,
  email,
  one,
  openTestDatabase,
  phone,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

const REDIS_URL = process.env.TEST_REDIS_URL?.trim() || "redis://127.0.0.1:6379";

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", (error: Error) => console.warn(`redis at ${REDIS_URL} not reachable: ${error.message}`));
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A schema of its own per server group: it is also the Redis key prefix, so runs never share a bucket. */
const namespace = (label: string) => `${label}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** BASE_ENV without its generous send limits, for GoTrue's defaults and the GOTRUE_ names. */
const PLAIN_ENV = Object.fromEntries(Object.entries(BASE_ENV).filter(([name]) => !name.includes("RATE_LIMIT")));

const modern = { "x-supabase-api-version": "2024-01-01" };
const json = { "content-type": "application/json" };

/** Mail is limited only while MAILER_AUTOCONFIRM is off (GoTrue). */
const MAIL_LIMITED = { AUTH_MAILER_AUTOCONFIRM: "false" };

const EMAIL_LIMITED_LEGACY = { code: 429, error_code: "over_email_send_rate_limit", msg: "email rate limit exceeded" };
const EMAIL_LIMITED_MODERN = { code: "over_email_send_rate_limit", message: "email rate limit exceeded" };
const SMS_LIMITED_LEGACY = { code: 429, error_code: "over_sms_send_rate_limit", msg: "SMS rate limit exceeded" };
const REQUEST_LIMITED_LEGACY = { code: 429, error_code: "over_request_rate_limit", msg: "Request rate limit reached" };

const post = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request(path, { method: "POST", headers: { ...json, ...headers }, body: JSON.stringify(body) });

async function invite(server: TestServer, address: string, headers: Record<string, string> = {}): Promise<Response> {
  return post(server, "/invite", { email: address }, { authorization: `Bearer ${await adminToken()}`, ...headers });
}

describe.each(backends)("send limits on %s", (backend) => {
  let database: TestDatabase;
  const servers: TestServer[] = [];

  const start = async (env: Record<string, string>) => {
    const server = await startTestServer(database.db, { AUTH_DB_NAMESPACE: namespace("sends"), ...env });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    database = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await database?.dispose();
  });

  it("RATE_LIMIT_EMAIL_SENT: /invite and /recover draw from one bucket; past it, 429 over_email_send_rate_limit and nothing is kept", async () => {
    const server = await start({ ...MAIL_LIMITED, AUTH_RATE_LIMIT_EMAIL_SENT: "2" });
    const admin = await adminApi(server);
    const { address } = await createConfirmedUser(admin, "recover");
    expect(server.outbox).toHaveLength(0);

    expect((await invite(server, email("invited"))).status).toBe(200);
    expect((await post(server, "/recover", { email: address })).status).toBe(200);
    expect(server.outbox.map((message) => message.kind)).toEqual(["invite", "recovery"]);

    const refusedAddress = email("refused");
    const refused = await invite(server, refusedAddress);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-sb-error-code")).toBe("over_email_send_rate_limit");
    expect(await refused.json()).toEqual(EMAIL_LIMITED_LEGACY);
    // The invited user was rolled back with the mail.
    const { n } = await one<{ n: number }>(
      server.db,
      sql`SELECT count(*)::int AS n FROM ${server.table("users")} WHERE email = ${refusedAddress}`,
    );
    expect(Number(n)).toBe(0);

    const other = await createConfirmedUser(admin, "recover-late");
    const recover = await post(server, "/recover", { email: other.address }, modern);
    expect(recover.status).toBe(429);
    expect(await recover.json()).toEqual(EMAIL_LIMITED_MODERN);
    const row = await one<{ recovery_sent_at: string | null }>(
      server.db,
      sql`SELECT recovery_sent_at FROM ${server.table("users")} WHERE id = ${other.user.id}`,
    );
    expect(row.recovery_sent_at).toBeNull();
    expect(server.outbox).toHaveLength(2);
  });

  it("counts sign-up confirmation mails; the auth-js client sees the 429", async () => {
    const server = await start({ ...MAIL_LIMITED, AUTH_RATE_LIMIT_EMAIL_SENT: "1" });
    const first = await server.client().signUp({ email: email("first"), password: "secret-1" });
    expect(first.error).toBeNull();
    const second = await server.client().signUp({ email: email("second"), password: "secret-1" });
    expect(second.error?.status).toBe(429);
    expect(second.error?.code).toBe("over_email_send_rate_limit");
    expect(second.error?.message).toBe("email rate limit exceeded");
    expect(server.outbox.map((message) => message.kind)).toEqual(["confirmation"]);
  });

  it("N/duration is GoTrue's burst: N sends at once, then one more per duration", async () => {
    // The GOTRUE_ name, with BASE_ENV's AUTH_ one emptied (an empty setting counts as unset).
    const server = await start({ ...MAIL_LIMITED, AUTH_RATE_LIMIT_EMAIL_SENT: "", GOTRUE_RATE_LIMIT_EMAIL_SENT: "2/1s" });
    expect((await invite(server, email("a"))).status).toBe(200);
    expect((await invite(server, email("b"))).status).toBe(200);
    expect((await invite(server, email("c"))).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await invite(server, email("d"))).status).toBe(200);
    expect((await invite(server, email("e"))).status).toBe(429);
    expect(server.outbox).toHaveLength(3);
  });

  it("0 refuses every mail, even with MAILER_AUTOCONFIRM; otherwise autoconfirm skips the limit (GoTrue)", async () => {
    const blocked = await start({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_RATE_LIMIT_EMAIL_SENT: "0/1h" });
    const refused = await invite(blocked, email("zero"));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(EMAIL_LIMITED_LEGACY);
    const { address } = await createConfirmedUser(await adminApi(blocked), "zero");
    expect((await post(blocked, "/recover", { email: address })).status).toBe(429);
    expect(blocked.outbox).toHaveLength(0);

    const autoconfirmed = await start({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_RATE_LIMIT_EMAIL_SENT: "1" });
    for (const label of ["x", "y", "z"]) expect((await invite(autoconfirmed, email(label))).status).toBe(200);
    expect(autoconfirmed.outbox).toHaveLength(3);
  });

  it("an email change mailing both addresses is one send", async () => {
    const server = await start({
      ...MAIL_LIMITED,
      AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "true",
      AUTH_RATE_LIMIT_EMAIL_SENT: "2",
    });
    const { address, password } = await createConfirmedUser(await adminApi(server), "change");
    const client = server.client();
    expect((await client.signInWithPassword({ email: address, password })).error).toBeNull();
    expect((await client.updateUser({ email: email("changed") })).error).toBeNull();
    expect(server.outbox.map((message) => message.kind).sort()).toEqual(["email_change_current", "email_change_new"]);
    expect((await invite(server, email("after"))).status).toBe(200);
    expect((await invite(server, email("over"))).status).toBe(429);
  });

  it("RATE_LIMIT_SMS_SENT: 429 over_sms_send_rate_limit; SMS_TEST_OTP numbers and SMS_AUTOCONFIRM are not counted", async () => {
    const testNumber = phone();
    const server = await start({
      AUTH_SMS_AUTOCONFIRM: "false",
      AUTH_RATE_LIMIT_SMS_SENT: "1",
      AUTH_SMS_TEST_OTP: `${testNumber.slice(1)}:123456`,
    });
    expect((await post(server, "/signup", { phone: testNumber, password: "secret-1" })).status).toBe(200);
    expect((await post(server, "/signup", { phone: phone(), password: "secret-1" })).status).toBe(200);
    const refused = await post(server, "/signup", { phone: phone(), password: "secret-1" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-sb-error-code")).toBe("over_sms_send_rate_limit");
    expect(await refused.json()).toEqual(SMS_LIMITED_LEGACY);
    // The test number was sent nothing (its code is the fixed one), so only one SMS went out.
    const sms = server.outbox.filter((message) => message.channel === "sms");
    expect(sms).toHaveLength(1);
    expect(sms[0]?.to).not.toBe(testNumber.slice(1));
    // The mail bucket is a different one.
    expect((await invite(server, email("mail"))).status).toBe(200);

    // With SMS_AUTOCONFIRM even a limit of 0 lets SMS through (GoTrue checks no zero for SMS).
    const autoconfirmed = await start({ AUTH_SMS_AUTOCONFIRM: "true", AUTH_RATE_LIMIT_SMS_SENT: "0" });
    const signedUp = await autoconfirmed.client().signUp({ phone: phone(), password: "secret-1" });
    const token = signedUp.data.session?.access_token;
    expect(token).toBeTruthy();
    const nonce = await autoconfirmed.request("/reauthenticate", { headers: { authorization: `Bearer ${token}` } });
    expect(nonce.status).toBe(200);
    expect(autoconfirmed.outbox.map((message) => [message.kind, message.channel])).toEqual([["reauthentication", "sms"]]);
  });

  it("each instance has its own bucket without Redis", async () => {
    const env = { ...MAIL_LIMITED, AUTH_DB_NAMESPACE: namespace("memory"), AUTH_RATE_LIMIT_EMAIL_SENT: "1" };
    const [a, b] = [await start(env), await start(env)];
    expect((await invite(a, email("a"))).status).toBe(200);
    expect((await invite(b, email("b"))).status).toBe(200);
    expect((await invite(a, email("c"))).status).toBe(429);
  });

  it("instances with the same AUTH_REDIS_URL share one bucket, in both shapes", async (context) => {
    if (!(await redisReachable())) return context.skip();
    for (const limit of ["2", "2/1h"]) {
      const env = { ...MAIL_LIMITED, AUTH_DB_NAMESPACE: namespace("redis"), AUTH_REDIS_URL: REDIS_URL, AUTH_RATE_LIMIT_EMAIL_SENT: limit };
      const [a, b] = [await start(env), await start(env)];
      expect((await invite(a, email("a"))).status).toBe(200);
      expect((await invite(b, email("b"))).status).toBe(200);
      const refused = await invite(a, email("c"));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual(EMAIL_LIMITED_LEGACY);
      expect((await invite(b, email("d"))).status).toBe(429);
      expect(a.outbox.length + b.outbox.length).toBe(2);
    }
  });
});

describe.each(backends)("request limits on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: namespace("requests"),
      AUTH_RATE_LIMIT_HEADER: "X-Real-IP",
      AUTH_RATE_LIMIT_VERIFY: "2",
      AUTH_RATE_LIMIT_OTP: "1",
    });
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const client = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  const getVerify = (headers: Record<string, string> = {}) =>
    server.request("/verify?type=signup&token=nope&redirect_to=http://localhost:3000", { headers, redirect: "manual" });
  const postVerify = (headers: Record<string, string> = {}) =>
    post(server, "/verify", { type: "signup", token: "nope", email: email() }, headers);

  it("RATE_LIMIT_VERIFY: GET and POST /verify share one bucket of 30 per key; 429 over_request_rate_limit", async () => {
    const ip = client();
    for (let i = 0; i < 15; i++) {
      expect((await postVerify({ "x-real-ip": ip })).status).not.toBe(429);
      expect((await getVerify({ "x-real-ip": ip })).status).not.toBe(429);
    }
    const refused = await getVerify({ "x-real-ip": ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-sb-error-code")).toBe("over_request_rate_limit");
    expect(await refused.json()).toEqual(REQUEST_LIMITED_LEGACY);
    const modernRefused = await postVerify({ "x-real-ip": `${ip}, 10.0.0.1`, ...modern });
    expect(await modernRefused.json()).toEqual({ code: "over_request_rate_limit", message: "Request rate limit reached" });
    // Another key has its own bucket; no key, no limit (GoTrue).
    expect((await postVerify({ "x-real-ip": client() })).status).not.toBe(429);
    for (let i = 0; i < 4; i++) expect((await postVerify()).status).not.toBe(429);
  });

  it("RATE_LIMIT_OTP: /recover, /signup and PUT /user each have their own bucket; anonymous sign-ups are not counted", async () => {
    const ip = client();
    const key = { "x-real-ip": ip };
    const { address, password } = await createConfirmedUser(admin, "otp");
    // Addresses without accounts: a known one would get GoTrue's send-window 429 from the second on.
    const recovered = await Promise.all(Array.from({ length: 30 }, () => post(server, "/recover", { email: email("nobody") }, key)));
    expect(recovered.map((response) => response.status)).toEqual(Array(30).fill(200));
    const refused = await post(server, "/recover", { email: email("nobody") }, key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(REQUEST_LIMITED_LEGACY);

    // The drained /recover bucket does not touch /signup's; a refused weak password counts too.
    for (let i = 0; i < 3; i++) expect((await post(server, "/signup", {}, key)).status).toBe(200);
    for (let i = 0; i < 29; i++) expect((await post(server, "/signup", { email: email("otp"), password: "1" }, key)).status).toBe(422);
    expect((await post(server, "/signup", { email: email("otp"), password: "secret-1" }, key)).status).toBe(200);
    expect((await post(server, "/signup", { email: email("otp"), password: "secret-1" }, key)).status).toBe(429);

    const session = await server.client().signInWithPassword({ email: address, password });
    const bearer = { authorization: `Bearer ${session.data.session?.access_token}` };
    const update = (headers: Record<string, string>) =>
      server.request("/user", { method: "PUT", headers: { ...json, ...bearer, ...headers }, body: JSON.stringify({ data: { n: 1 } }) });
    for (let i = 0; i < 30; i++) expect((await update(key)).status).toBe(200);
    expect((await update(key)).status).toBe(429);
    expect((await update({ "x-real-ip": client() })).status).toBe(200);
    expect((await update({})).status).toBe(200);
    // /verify keeps its own allowance too.
    expect((await postVerify(key)).status).not.toBe(429);
  });

  it("limits /otp, /magiclink and /resend by route path as soon as those routes exist", async () => {
    const config = readAuthConfig({ ...BASE_ENV, AUTH_RATE_LIMIT_HEADER: "X-Real-IP", AUTH_RATE_LIMIT_OTP: "1" });
    const app = Fastify({ logger: false });
    const logger = createLogger({ level: "silent" });
    registerRouteLimits(app, config, createRouteLimits(config.rateLimit, { keyPrefix: `test:${randomUUID()}`, logger }));
    for (const path of ["/otp", "/magiclink", "/resend"]) app.post(path, async () => ({}));
    app.get("/otp", async () => ({}));
    try {
      const ip = client();
      const call = (method: "GET" | "POST", url: string) => app.inject({ method, url, headers: { "x-real-ip": ip }, payload: {} });
      for (const path of ["/otp", "/magiclink", "/resend"]) {
        for (let i = 0; i < 30; i++) expect((await call("POST", path)).statusCode).toBe(200);
        expect((await call("POST", path)).statusCode).toBe(429);
      }
      // Only the methods GoTrue limits.
      expect((await call("GET", "/otp")).statusCode).toBe(200);
      expect((await call("GET", "/otp")).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe("rate-limit settings", () => {
  const read = (env: Record<string, string>) => readAuthConfig({ ...PLAIN_ENV, ...env }).rateLimit;
  const problems = (env: Record<string, string>): string[] => {
    try {
      read(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it("has GoTrue's defaults", () => {
    const limits = read({});
    expect(limits.emailSent).toEqual({ shape: "interval", events: 30, perMs: 3_600_000 });
    expect(limits.smsSent).toEqual({ shape: "interval", events: 30, perMs: 3_600_000 });
    expect(limits.verify).toBe(30);
    expect(limits.otp).toBe(30);
    expect(limits.tokenRefresh).toBe(150);
  });

  it("reads N as per hour and N/duration as a burst, with AUTH_ or GOTRUE_ prefixes", () => {
    expect(read({ AUTH_RATE_LIMIT_EMAIL_SENT: "1800.0" }).emailSent).toEqual({ shape: "interval", events: 1800, perMs: 3_600_000 });
    expect(read({ GOTRUE_RATE_LIMIT_EMAIL_SENT: "10/1m" }).emailSent).toEqual({ shape: "burst", events: 10, perMs: 60_000 });
    expect(read({ AUTH_RATE_LIMIT_SMS_SENT: "3600/1h0m0s" }).smsSent).toEqual({ shape: "burst", events: 3600, perMs: 3_600_000 });
    expect(read({ AUTH_RATE_LIMIT_SMS_SENT: "100/24h" }).smsSent).toEqual({ shape: "burst", events: 100, perMs: 86_400_000 });
    expect(read({ AUTH_RATE_LIMIT_SMS_SENT: "0/1h" }).smsSent).toEqual({ shape: "burst", events: 0, perMs: 3_600_000 });
    // GoTrue's burst limiter takes a duration of zero or less as an hour.
    expect(read({ AUTH_RATE_LIMIT_SMS_SENT: "5/0s" }).smsSent).toEqual({ shape: "burst", events: 5, perMs: 3_600_000 });
    expect(read({ GOTRUE_RATE_LIMIT_VERIFY: "7", GOTRUE_RATE_LIMIT_OTP: "9" })).toMatchObject({ verify: 7, otp: 9 });
    // GoTrue reads the request limits as floats; 0 leaves the burst and earns nothing back.
    expect(read({ AUTH_RATE_LIMIT_VERIFY: "2.5", AUTH_RATE_LIMIT_OTP: "0", AUTH_RATE_LIMIT_TOKEN_REFRESH: "1e3" })).toMatchObject({
      verify: 2.5,
      otp: 0,
      tokenRefresh: 1000,
    });
  });

  it("rejects what GoTrue rejects (and negative or non-numeric counts) with a message naming the setting", () => {
    for (const bad of ["1h", "/", "/1h", "3600.0/1h", "100/", "100/1", "1/2/3", "-1/1h", "ten", "-5"]) {
      const found = problems({ AUTH_RATE_LIMIT_EMAIL_SENT: bad });
      expect(found, bad).toHaveLength(1);
      expect(found[0]).toMatch(/^AUTH_RATE_LIMIT_EMAIL_SENT: /);
      expect(found[0]).toContain(bad);
    }
    expect(problems({ GOTRUE_RATE_LIMIT_SMS_SENT: "100/1" })[0]).toBe(
      'GOTRUE_RATE_LIMIT_SMS_SENT: the duration part of "100/1" is not a Go duration such as 1m or 1h30m (time: missing unit in duration "1")',
    );
    expect(problems({ AUTH_RATE_LIMIT_VERIFY: "-1", AUTH_RATE_LIMIT_OTP: "many", AUTH_RATE_LIMIT_TOKEN_REFRESH: "Infinity" })).toEqual([
      'AUTH_RATE_LIMIT_TOKEN_REFRESH: must be a number of at least 0, got "Infinity"',
      'AUTH_RATE_LIMIT_VERIFY: must be a number of at least 0, got "-1"',
      'AUTH_RATE_LIMIT_OTP: must be a number of at least 0, got "many"',
    ]);
  });

  it("the memory buckets follow GoTrue's interval and burst limiters", async () => {
    let now = 0;
    const clock = () => now;
    const interval = memoryIntervalBucket({ shape: "interval", events: 2.9, perMs: 1_000 }, clock);
    expect([await interval.take(), await interval.take(), await interval.take()]).toEqual([true, true, false]);
    now = 999;
    expect(await interval.take()).toBe(false);
    now = 1_000;
    expect([await interval.take(), await interval.take(), await interval.take()]).toEqual([true, true, false]);

    now = 0;
    const burst = memoryBurstBucket({ shape: "burst", events: 3, perMs: 1_000 }, clock);
    expect([await burst.take(), await burst.take(), await burst.take(), await burst.take()]).toEqual([true, true, true, false]);
    now = 1_500;
    expect([await burst.take(), await burst.take()]).toEqual([true, false]);
    now = 10_000;
    expect([await burst.take(), await burst.take(), await burst.take(), await burst.take()]).toEqual([true, true, true, false]);
    const none = memoryBurstBucket({ shape: "burst", events: 0, perMs: 1_000 }, clock);
    expect(await none.take()).toBe(false);
  });

  it("a request limit is a bucket of 30 per key, earning N back per five minutes (GoTrue's tollbooth limiters)", async () => {
    let now = 0;
    const limiter = memoryRequestLimiter(requestBucket(60), () => now);
    const burst = async (key: string, n: number) => {
      const answers: boolean[] = [];
      for (let i = 0; i < n; i++) answers.push(await limiter.allow(key));
      return answers;
    };
    expect(await burst("a", 31)).toEqual([...Array(30).fill(true), false]);
    expect(await burst("b", 1)).toEqual([true]);
    // 60 per five minutes: one back every 5 s.
    now = 4_999;
    expect(await limiter.allow("a")).toBe(false);
    now = 5_000;
    expect(await burst("a", 2)).toEqual([true, false]);
    now = 10 * 60_000;
    expect(await burst("a", 31)).toEqual([...Array(30).fill(true), false]);
    const never = memoryRequestLimiter(requestBucket(0), () => now);
    for (let i = 0; i < 30; i++) await never.allow("c");
    now += 24 * 3_600_000;
    expect(await never.allow("c")).toBe(false);
  });

  it("while Redis cannot be reached, an instance counts sends and requests in its own memory", async () => {
    const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const warnings: string[] = [];
    redis.on("error", (error: Error) => warnings.push(error.message));
    const logger = createLogger({ level: "silent" });
    logger.warn = ((_fields: unknown, message: string) => {
      warnings.push(message);
    }) as typeof logger.warn;
    const bucket = createSendBucket({ shape: "interval", events: 1, perMs: 3_600_000 }, { key: `test:${randomUUID()}`, redis, logger });
    try {
      expect([await bucket.take(), await bucket.take()]).toEqual([true, false]);
      expect(warnings).toContain("redis unavailable: the send limit uses this instance's memory");
      const limiter = createRequestLimiter(requestBucket(1), { keyPrefix: `test:${randomUUID()}`, redis, logger });
      const answers: boolean[] = [];
      for (let i = 0; i < 31; i++) answers.push(await limiter.allow("10.0.0.1"));
      expect(answers).toEqual([...Array(30).fill(true), false]);
      expect(warnings).toContain("redis unavailable: the request limit uses this instance's memory");
    } finally {
      redis.disconnect();
    }
  });
});

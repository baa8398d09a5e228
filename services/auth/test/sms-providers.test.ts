/**
 * SMS through the providers GoTrue supports (twilio, messagebird, textlocal, vonage, twilio_verify). Each
 * provider's API is a local HTTP stand-in (node:http, port 0) that the real service is pointed at
 * with SMS_<PROVIDER>_BASE_URL: the tests check the exact request it receives (method, path,
 * authentication, content type, every form field), answer as the provider's API does, read the
 * code from the text and finish the flow through the service's HTTP API (POST /signup, then
 * POST /verify). Failures: a provider's error answers GoTrue's 422 sms_send_failed with GoTrue's
 * message and leaves no user behind; a provider that does not answer fails within the timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuthConfig } from "../src/config.js";
import { BASE_ENV, backends, one, openTestDatabase, phone, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  form: Record<string, string>;
}

type Answer = { status: number; json: unknown } | "hang";

/** A provider's API on 127.0.0.1: records each request and answers with the next queued answer, else the default. */
interface StandIn {
  url: string;
  received: Received[];
  /** The answer for the next request only. */
  answerNext(answer: Answer): void;
  /** The request for `to` (the form field holding the number differs per provider). */
  requestFor(predicate: (r: Received) => boolean): Received;
  close(): Promise<void>;
}

async function startStandIn(answer: (r: Received) => { status: number; json: unknown }): Promise<StandIn> {
  const received: Received[] = [];
  const queued: Answer[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      raw += chunk;
    });
    request.on("end", () => {
      const entry = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        form: Object.fromEntries(new URLSearchParams(raw)),
      };
      received.push(entry);
      const next = queued.shift() ?? answer(entry);
      if (next === "hang") {
        hanging.push(response);
        return;
      }
      response.writeHead(next.status, { "content-type": "application/json" });
      response.end(JSON.stringify(next.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerNext: (a) => void queued.push(a),
    requestFor(predicate) {
      const found = received.filter(predicate);
      expect(found).toHaveLength(1);
      return found[0] as Received;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const FORM = "application/x-www-form-urlencoded";
const json = (method: string, body: unknown, token?: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});
const digits = (number: string) => number.slice(1);
const codeIn = (text: string | undefined) => /\b(\d{6})\b/.exec(text ?? "")?.[1] as string;

interface ProviderCase {
  name: "twilio" | "messagebird" | "textlocal" | "vonage";
  env: (baseUrl: string) => Record<string, string>;
  /** A success answer as the provider's API gives it, for the number in the request. */
  success: (r: Received) => { status: number; json: unknown };
  /** The number a request is for, as the provider's field holds it. */
  recipient: (r: Received) => string;
  /** The SMS text of a request. */
  text: (r: Received) => string | undefined;
  /** Checks everything about the request but the text. */
  expectRequest: (r: Received, number: string) => void;
  /** An error answer as the provider's API gives it, and GoTrue's reason for it. */
  failure: { answer: { status: number; json: unknown }; reason: string };
}

const TWILIO = {
  sid: "AC0123456789abcdef0123456789abcdef",
  token: "twilio-auth-token-secret",
  service: "MG0123456789abcdef0123456789abcdef",
};

const PROVIDERS: ProviderCase[] = [
  {
    name: "twilio",
    env: (baseUrl) => ({
      AUTH_SMS_PROVIDER: "twilio",
      AUTH_SMS_TWILIO_ACCOUNT_SID: TWILIO.sid,
      AUTH_SMS_TWILIO_AUTH_TOKEN: TWILIO.token,
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: TWILIO.service,
      AUTH_SMS_TWILIO_BASE_URL: baseUrl,
    }),
    success: (r) => ({ status: 201, json: { sid: `SM${r.form.To?.slice(-8)}`, status: "queued", to: r.form.To, body: r.form.Body } }),
    recipient: (r) => r.form.To as string,
    text: (r) => r.form.Body,
    expectRequest(r, number) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe(`/2010-04-01/Accounts/${TWILIO.sid}/Messages.json`);
      expect(r.headers.authorization).toBe(basic(TWILIO.sid, TWILIO.token));
      expect(r.headers["content-type"]).toBe(FORM);
      expect(Object.keys(r.form).sort()).toEqual(["Body", "Channel", "From", "To"]);
      expect(r.form).toMatchObject({ To: number, Channel: "sms", From: TWILIO.service });
    },
    failure: {
      answer: {
        status: 400,
        json: {
          code: 21211,
          message: "The 'To' number is not a valid phone number.",
          more_info: "https://www.twilio.com/docs/errors/21211",
          status: 400,
        },
      },
      reason: "The 'To' number is not a valid phone number. More information: https://www.twilio.com/docs/errors/21211",
    },
  },
  {
    name: "messagebird",
    env: (baseUrl) => ({
      GOTRUE_SMS_PROVIDER: "messagebird",
      GOTRUE_SMS_MESSAGEBIRD_ACCESS_KEY: "messagebird-access-key",
      GOTRUE_SMS_MESSAGEBIRD_ORIGINATOR: "ExampleApp",
      GOTRUE_SMS_MESSAGEBIRD_BASE_URL: baseUrl,
    }),
    success: (r) => ({
      status: 201,
      json: {
        id: `mb-${r.form.recipients}`,
        recipients: { totalCount: 1, totalSentCount: 1, items: [{ recipient: Number(r.form.recipients) }] },
      },
    }),
    recipient: (r) => r.form.recipients as string,
    text: (r) => r.form.body,
    expectRequest(r, number) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/messages");
      expect(r.headers.authorization).toBe("AccessKey messagebird-access-key");
      expect(r.headers["content-type"]).toBe(FORM);
      expect(Object.keys(r.form).sort()).toEqual(["body", "datacoding", "originator", "recipients", "type"]);
      expect(r.form).toMatchObject({ originator: "ExampleApp", recipients: digits(number), type: "sms", datacoding: "unicode" });
    },
    failure: {
      answer: { status: 422, json: { errors: [{ code: 9, description: "no (correct) recipients found", parameter: "recipients" }] } },
      reason: "no (correct) recipients found",
    },
  },
  {
    name: "textlocal",
    env: (baseUrl) => ({
      AUTH_SMS_PROVIDER: "textlocal",
      AUTH_SMS_TEXTLOCAL_API_KEY: "textlocal-api-key",
      AUTH_SMS_TEXTLOCAL_SENDER: "EXAMPL",
      AUTH_SMS_TEXTLOCAL_BASE_URL: `${baseUrl}/`,
    }),
    success: (r) => ({
      status: 200,
      json: {
        status: "success",
        balance: 1162,
        num_messages: 1,
        messages: [{ id: `tl-${r.form.numbers}`, recipient: Number(r.form.numbers) }],
      },
    }),
    recipient: (r) => r.form.numbers as string,
    text: (r) => r.form.message,
    expectRequest(r, number) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/send");
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers["content-type"]).toBe(FORM);
      expect(Object.keys(r.form).sort()).toEqual(["apikey", "message", "numbers", "sender"]);
      expect(r.form).toMatchObject({ sender: "EXAMPL", apikey: "textlocal-api-key", numbers: digits(number) });
    },
    failure: {
      answer: { status: 200, json: { status: "failure", errors: [{ code: 7, message: "Insufficient credits to send message" }] } },
      reason: "textlocal error: Insufficient credits to send message (code: 7) message ",
    },
  },
  {
    name: "vonage",
    env: (baseUrl) => ({
      AUTH_SMS_PROVIDER: "vonage",
      AUTH_SMS_VONAGE_API_KEY: "vonage-key",
      AUTH_SMS_VONAGE_API_SECRET: "vonage-api-secret",
      AUTH_SMS_VONAGE_FROM: "Example",
      AUTH_SMS_VONAGE_BASE_URL: baseUrl,
    }),
    success: (r) => ({
      status: 200,
      json: {
        "message-count": "1",
        messages: [{ to: r.form.to, "message-id": `vn-${r.form.to}`, status: "0", "remaining-balance": "3.14" }],
      },
    }),
    recipient: (r) => r.form.to as string,
    text: (r) => r.form.text,
    expectRequest(r, number) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/sms/json");
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers["content-type"]).toBe(FORM);
      expect(Object.keys(r.form).sort()).toEqual(["api_key", "api_secret", "from", "text", "to"]);
      expect(r.form).toMatchObject({ from: "Example", to: digits(number), api_key: "vonage-key", api_secret: "vonage-api-secret" });
    },
    failure: {
      answer: { status: 200, json: { "message-count": "1", messages: [{ status: "9", "error-text": "Quota Exceeded - rejected" }] } },
      reason: "vonage error: Quota Exceeded - rejected (status: 9) for message ",
    },
  },
];

const SMS_ENV = { AUTH_SMS_AUTOCONFIRM: "false", AUTH_SMS_MAX_FREQUENCY: "0s" };

async function countUsers(server: TestServer, number: string): Promise<number> {
  const row = await one<{ n: number }>(
    server.db,
    sql`SELECT count(*)::int AS n FROM ${server.table("users")} WHERE phone = ${digits(number)}`,
  );
  return row.n;
}

const signup = (server: TestServer, number: string, extra: Record<string, unknown> = {}) =>
  server.request("/signup", json("POST", { phone: number, password: "secret-1", ...extra }));

describe.each(backends)("SMS providers on %s", (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.dispose();
  });

  describe.each(PROVIDERS)("$name", (provider) => {
    let standIn: StandIn;
    let server: TestServer;
    beforeAll(async () => {
      standIn = await startStandIn(provider.success);
      server = await startTestServer(
        database.db,
        { ...SMS_ENV, ...provider.env(standIn.url), AUTH_DB_NAMESPACE: `sms_${provider.name}` },
        { deliver: true },
      );
    });
    afterAll(async () => {
      await server?.close();
      await standIn?.close();
    });

    it("sign-up sends the code in the provider's exact request; POST /verify with it answers a session", async () => {
      const number = phone();
      const response = await signup(server, number);
      expect(response.status).toBe(200);
      const user = (await response.json()) as { id: string; phone: string; confirmation_sent_at: string };
      expect(user.phone).toBe(digits(number));
      expect(user.confirmation_sent_at).toBeTruthy();

      const request = standIn.requestFor((r) => provider.recipient(r).endsWith(digits(number)));
      provider.expectRequest(request, number);
      expect(provider.text(request)).toMatch(/^Your code is \d{6}$/);

      const verified = await server.request("/verify", json("POST", { type: "sms", phone: number, token: codeIn(provider.text(request)) }));
      expect(verified.status).toBe(200);
      const session = (await verified.json()) as { access_token: string; user: { id: string; phone_confirmed_at: string } };
      expect(session.access_token).toBeTruthy();
      expect(session.user.id).toBe(user.id);
      expect(session.user.phone_confirmed_at).toBeTruthy();
    });

    it("a provider error answers GoTrue's 422 sms_send_failed and leaves no user; a retry signs up", async () => {
      const number = phone();
      standIn.answerNext(provider.failure.answer);
      const response = await signup(server, number);
      expect(response.status).toBe(422);
      expect(response.headers.get("x-sb-error-code")).toBe("sms_send_failed");
      expect(await response.json()).toEqual({
        code: 422,
        error_code: "sms_send_failed",
        msg: `Error sending confirmation OTP to provider: ${provider.failure.reason}`,
      });
      expect(await countUsers(server, number)).toBe(0);

      const retry = await signup(server, number);
      expect(retry.status).toBe(200);
      expect(await countUsers(server, number)).toBe(1);
      const sent = standIn.received.filter((r) => provider.recipient(r).endsWith(digits(number)));
      expect(sent).toHaveLength(2);
      const verified = await server.request(
        "/verify",
        json("POST", { type: "sms", phone: number, token: codeIn(provider.text(sent[1] as Received)) }),
      );
      expect(verified.status).toBe(200);
    });

    if (provider.name !== "twilio") {
      it("refuses WhatsApp with GoTrue's invalid-channel error and sends nothing", async () => {
        const number = phone();
        const response = await signup(server, number, { channel: "whatsapp" });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          code: 400,
          error_code: "validation_failed",
          msg: "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
        });
        expect(standIn.received.filter((r) => provider.recipient(r).endsWith(digits(number)))).toEqual([]);
        expect(await countUsers(server, number)).toBe(0);
      });
    }
  });

  describe("twilio in detail", () => {
    let standIn: StandIn;
    let server: TestServer;
    let byNumber: TestServer;
    const twilio = PROVIDERS[0] as ProviderCase;
    beforeAll(async () => {
      standIn = await startStandIn(twilio.success);
      server = await startTestServer(
        database.db,
        {
          ...SMS_ENV,
          ...twilio.env(standIn.url),
          AUTH_SMS_TEMPLATE: "{{/* a comment */}}Example: {{ .Code }} is your code{{ if .Code }}.{{ end }}",
          AUTH_INTERNAL_HTTP_TIMEOUT: "400ms",
          AUTH_DB_NAMESPACE: "sms_twilio_detail",
        },
        { deliver: true },
      );
      // A phone number as sender and a WhatsApp content template.
      byNumber = await startTestServer(
        database.db,
        {
          ...SMS_ENV,
          ...twilio.env(standIn.url),
          AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "+15550009999",
          AUTH_SMS_TWILIO_CONTENT_SID: "HX0123456789abcdef0123456789abcdef",
          AUTH_DB_NAMESPACE: "sms_twilio_number",
        },
        { deliver: true },
      );
    });
    afterAll(async () => {
      await server?.close();
      await byNumber?.close();
      await standIn?.close();
    });

    const requestTo = (to: string) => standIn.requestFor((r) => r.form.To === to);

    it("renders SMS_TEMPLATE with the code", async () => {
      const number = phone();
      expect((await signup(server, number)).status).toBe(200);
      expect(requestTo(number).form.Body).toMatch(/^Example: \d{6} is your code\.$/);
    });

    it("WhatsApp goes with whatsapp: before To (a messaging service SID as From stays as it is) and verifies", async () => {
      const number = phone();
      expect((await signup(server, number, { channel: "whatsapp" })).status).toBe(200);
      const request = requestTo(`whatsapp:${number}`);
      expect(request.path).toBe(`/2010-04-01/Accounts/${TWILIO.sid}/Messages.json`);
      expect(request.headers.authorization).toBe(basic(TWILIO.sid, TWILIO.token));
      expect(request.form).toEqual({ To: `whatsapp:${number}`, Channel: "whatsapp", From: TWILIO.service, Body: expect.any(String) });
      const token = codeIn(request.form.Body);
      const verified = await server.request("/verify", json("POST", { type: "sms", phone: number, token }));
      expect(verified.status).toBe(200);
    });

    it("WhatsApp from a phone number prefixes From too; a content SID carries the code as its variable", async () => {
      const number = phone();
      expect((await signup(byNumber, number, { channel: "whatsapp" })).status).toBe(200);
      const request = requestTo(`whatsapp:${number}`);
      expect(Object.keys(request.form).sort()).toEqual(["Channel", "ContentSid", "ContentVariables", "From", "To"]);
      expect(request.form).toMatchObject({
        To: `whatsapp:${number}`,
        Channel: "whatsapp",
        From: "whatsapp:+15550009999",
        ContentSid: "HX0123456789abcdef0123456789abcdef",
      });
      const variables = JSON.parse(request.form.ContentVariables as string) as Record<string, string>;
      expect(Object.keys(variables)).toEqual(["1"]);
      const verified = await byNumber.request("/verify", json("POST", { type: "sms", phone: number, token: variables["1"] }));
      expect(verified.status).toBe(200);
      // A plain SMS from the same server stays without prefixes or content template.
      const plain = phone();
      expect((await signup(byNumber, plain)).status).toBe(200);
      expect(requestTo(plain).form).toEqual({
        To: plain,
        Channel: "sms",
        From: "+15550009999",
        Body: expect.stringMatching(/^Your code is \d{6}$/),
      });
    });

    it("a provider that does not answer fails the sign-up within the timeout and leaves no user", async () => {
      const number = phone();
      standIn.answerNext("hang");
      const started = Date.now();
      const response = await signup(server, number);
      const elapsed = Date.now() - started;
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error_code: string; msg: string };
      expect(body.error_code).toBe("sms_send_failed");
      expect(body.msg).toBe(`Error sending confirmation OTP to provider: no answer from ${new URL(standIn.url).host} within 400ms`);
      expect(elapsed).toBeGreaterThanOrEqual(350);
      expect(elapsed).toBeLessThan(5_000);
      expect(await countUsers(server, number)).toBe(0);
    });

    it("a failed message (status failed) answers Twilio's error; credentials and the code never reach the answer", async () => {
      const failed = phone();
      standIn.answerNext({
        status: 201,
        json: { sid: "SMfailed", status: "failed", error_code: 30007, error_message: "Carrier violation" },
      });
      const response = await signup(server, failed);
      expect(await response.json()).toMatchObject({
        code: 422,
        error_code: "sms_send_failed",
        msg: "Error sending confirmation OTP to provider: twilio error: Carrier violation 30007 for message SMfailed",
      });

      const leaky = phone();
      standIn.answerNext({
        status: 401,
        json: { code: 20003, message: `Authenticate with ${TWILIO.token} failed`, more_info: "https://www.twilio.com/docs/errors/20003" },
      });
      const refused = await signup(server, leaky);
      const text = await refused.text();
      expect(refused.status).toBe(422);
      expect(text).not.toContain(TWILIO.token);
      expect(JSON.parse(text).msg).toBe(
        "Error sending confirmation OTP to provider: Authenticate with [redacted] failed More information: https://www.twilio.com/docs/errors/20003",
      );
      expect(await countUsers(server, leaky)).toBe(0);
    });

    it("a phone change sends a phone_change code; a failure names the phone_change OTP and keeps the old phone", async () => {
      const number = phone();
      await signup(server, number);
      const token = codeIn(requestTo(number).form.Body);
      const session = (await (await server.request("/verify", json("POST", { type: "sms", phone: number, token }))).json()) as {
        access_token: string;
      };

      const refusedNumber = phone();
      standIn.answerNext(twilio.failure.answer);
      const refused = await server.request("/user", json("PUT", { phone: refusedNumber }, session.access_token));
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({
        error_code: "sms_send_failed",
        msg: `Error sending phone_change OTP to provider: ${twilio.failure.reason}`,
      });
      const user = (await (await server.request("/user", { headers: { authorization: `Bearer ${session.access_token}` } })).json()) as {
        phone: string;
        new_phone?: string;
      };
      expect(user.phone).toBe(digits(number));
      expect(user.new_phone).toBeUndefined();

      const next = phone();
      const changed = await server.request("/user", json("PUT", { phone: next }, session.access_token));
      expect(changed.status).toBe(200);
      const sent = standIn.received.filter((r) => r.form.To === next);
      const code = codeIn(sent.at(-1)?.form.Body);
      const verified = await server.request("/verify", json("POST", { type: "phone_change", phone: next, token: code }));
      expect(verified.status).toBe(200);
      expect(((await verified.json()) as { user: { phone: string } }).user.phone).toBe(digits(next));

      // GET /reauthenticate by SMS answers the provider's message id, as GoTrue does.
      const reauth = await server.request("/reauthenticate", { headers: { authorization: `Bearer ${session.access_token}` } });
      expect(reauth.status).toBe(200);
      expect(await reauth.json()).toEqual({ message_id: `SM${next.slice(-8)}` });
    });
  });

  describe("twilio_verify", () => {
    const VERIFY_SERVICE = "VA0123456789abcdef0123456789abcdef";
    /** The codes Twilio Verify made, by To. */
    const codes = new Map<string, string>();
    let standIn: StandIn;
    let server: TestServer;
    beforeAll(async () => {
      standIn = await startStandIn((r) => {
        const to = r.form.To as string;
        if (r.path.endsWith("/Verifications")) {
          codes.set(to, String(100_000 + Math.floor(Math.random() * 900_000)));
          return { status: 201, json: { sid: `VE${to.slice(-8)}`, to, channel: r.form.Channel, status: "pending", valid: false } };
        }
        const approved = codes.get(to) === r.form.Code;
        return { status: 200, json: { to, channel: "sms", status: approved ? "approved" : "pending", valid: approved } };
      });
      server = await startTestServer(
        database.db,
        {
          ...SMS_ENV,
          AUTH_SMS_PROVIDER: "twilio_verify",
          AUTH_SMS_TWILIO_VERIFY_ACCOUNT_SID: TWILIO.sid,
          AUTH_SMS_TWILIO_VERIFY_AUTH_TOKEN: TWILIO.token,
          AUTH_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID: VERIFY_SERVICE,
          AUTH_SMS_TWILIO_VERIFY_BASE_URL: standIn.url,
          AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
          AUTH_DB_NAMESPACE: "sms_twilio_verify",
        },
        { deliver: true },
      );
    });
    afterAll(async () => {
      await server?.close();
      await standIn?.close();
    });

    it("sign-up starts a verification; /verify asks Twilio to check the code it made and answers a session", async () => {
      const number = phone();
      expect((await signup(server, number)).status).toBe(200);
      const started = standIn.requestFor((r) => r.path.endsWith("/Verifications") && r.form.To === number);
      expect(started.method).toBe("POST");
      expect(started.path).toBe(`/v2/Services/${VERIFY_SERVICE}/Verifications`);
      expect(started.headers.authorization).toBe(basic(TWILIO.sid, TWILIO.token));
      expect(started.headers["content-type"]).toBe(FORM);
      expect(started.form).toEqual({ To: number, Channel: "sms" });

      const wrong = await server.request("/verify", json("POST", { type: "sms", phone: number, token: "000000" }));
      expect(wrong.status).toBe(403);
      expect(await wrong.json()).toMatchObject({ error_code: "otp_expired", msg: "Token has expired or is invalid" });

      const token = codes.get(number) as string;
      const verified = await server.request("/verify", json("POST", { type: "sms", phone: number, token }));
      expect(verified.status).toBe(200);
      expect(((await verified.json()) as { access_token: string }).access_token).toBeTruthy();
      const checks = standIn.received.filter((r) => r.path.endsWith("/VerificationCheck") && r.form.To === number);
      expect(checks.map((r) => r.form)).toEqual([
        { To: number, Code: "000000" },
        { To: number, Code: token },
      ]);
      expect(checks.every((r) => r.path === `/v2/Services/${VERIFY_SERVICE}/VerificationCheck`)).toBe(true);
      expect(checks.every((r) => r.headers.authorization === basic(TWILIO.sid, TWILIO.token))).toBe(true);
    });

    it("a phone user's reauthentication nonce is made and checked by Twilio", async () => {
      const number = phone();
      await signup(server, number);
      const verified = await server.request("/verify", json("POST", { type: "sms", phone: number, token: codes.get(number) }));
      const session = (await verified.json()) as { access_token: string; user: { id: string } };
      // Sessions over 24 hours old need a nonce for a password change.
      await server.db.query(
        sql`UPDATE ${server.table("sessions")} SET created_at = now() - interval '25 hours' WHERE user_id = ${session.user.id}`,
      );
      const auth = { authorization: `Bearer ${session.access_token}` };

      const reauth = await server.request("/reauthenticate", { headers: auth });
      expect(reauth.status).toBe(200);
      expect(await reauth.json()).toEqual({ message_id: `VE${number.slice(-8)}` });
      expect(standIn.received.filter((r) => r.path.endsWith("/Verifications") && r.form.To === number)).toHaveLength(2);

      const wrong = await server.request("/user", json("PUT", { password: "secret-2", nonce: "000000" }, session.access_token));
      expect(wrong.status).toBe(403);
      expect(await wrong.json()).toMatchObject({ error_code: "otp_expired", msg: "Token has expired or is invalid" });
      const changed = await server.request("/user", json("PUT", { password: "secret-2", nonce: codes.get(number) }, session.access_token));
      expect(changed.status).toBe(200);
      const signedIn = await server.request("/token?grant_type=password", json("POST", { phone: number, password: "secret-2" }));
      expect(signedIn.status).toBe(200);
    });

    it("WhatsApp goes as Channel=whatsapp without prefixes; a refused verification answers sms_send_failed and keeps no user", async () => {
      const number = phone();
      expect((await signup(server, number, { channel: "whatsapp" })).status).toBe(200);
      expect(standIn.requestFor((r) => r.form.To === number).form).toEqual({ To: number, Channel: "whatsapp" });

      const refused = phone();
      standIn.answerNext({
        status: 429,
        json: { code: 60203, message: "Max send attempts reached", more_info: "https://www.twilio.com/docs/errors/60203", status: 429 },
      });
      const response = await signup(server, refused);
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        code: 422,
        error_code: "sms_send_failed",
        msg: "Error sending confirmation OTP to provider: Max send attempts reached More information: https://www.twilio.com/docs/errors/60203",
      });
      expect(await countUsers(server, refused)).toBe(0);
    });
  });

  describe("SMS_TEMPLATE", () => {
    let standIn: StandIn;
    let server: TestServer;
    const vonage = PROVIDERS[3] as ProviderCase;
    beforeAll(async () => {
      standIn = await startStandIn(vonage.success);
      server = await startTestServer(
        database.db,
        { ...SMS_ENV, ...vonage.env(standIn.url), AUTH_SMS_TEMPLATE: "Ваш код: {{ .Code }}", AUTH_DB_NAMESPACE: "sms_template" },
        { deliver: true },
      );
    });
    afterAll(async () => {
      await server?.close();
      await standIn?.close();
    });

    it("a text that is not plain ASCII goes to Vonage as type=unicode", async () => {
      const number = phone();
      expect((await signup(server, number)).status).toBe(200);
      const request = standIn.requestFor((r) => r.form.to === digits(number));
      expect(request.form.text).toMatch(/^Ваш код: \d{6}$/);
      expect(request.form.type).toBe("unicode");
    });

    it("a field other than .Code answers GoTrue's 500 'error generating sms template' and sends nothing", async () => {
      const other = await startTestServer(
        database.db,
        { ...SMS_ENV, ...vonage.env(standIn.url), AUTH_SMS_TEMPLATE: "{{ .Code }} for {{ .Phone }}", AUTH_DB_NAMESPACE: "sms_template" },
        { deliver: true },
      );
      try {
        const number = phone();
        const response = await signup(other, number);
        expect(response.status).toBe(500);
        expect(await response.json()).toMatchObject({ code: 500, error_code: "unexpected_failure", msg: "error generating sms template" });
        expect(standIn.received.filter((r) => r.form.to === digits(number))).toEqual([]);
        expect(await countUsers(other, number)).toBe(0);
      } finally {
        await other.close();
      }
    });
  });
});

describe("SMS settings", () => {
  const provider = {
    AUTH_SMS_PROVIDER: "vonage",
    AUTH_SMS_VONAGE_API_KEY: "k",
    AUTH_SMS_VONAGE_API_SECRET: "s",
    AUTH_SMS_VONAGE_FROM: "f",
  };

  it("defaults each base URL to the host GoTrue calls", () => {
    expect(readAuthConfig({ ...BASE_ENV, ...provider }).sms.baseUrls).toEqual({
      twilio: "https://api.twilio.com",
      twilio_verify: "https://verify.twilio.com",
      messagebird: "https://rest.messagebird.com",
      textlocal: "https://api.textlocal.in",
      vonage: "https://rest.nexmo.com",
    });
    expect(readAuthConfig({ ...BASE_ENV, ...provider }).sms.timeoutMs).toBe(10_000);
  });

  it("refuses a base URL that is not an http(s) URL and a template it cannot parse", () => {
    expect(() => readAuthConfig({ ...BASE_ENV, ...provider, AUTH_SMS_VONAGE_BASE_URL: "rest.nexmo.com" })).toThrow(
      /AUTH_SMS_VONAGE_BASE_URL.*must be an absolute URL/,
    );
    expect(() => readAuthConfig({ ...BASE_ENV, ...provider, GOTRUE_SMS_TWILIO_BASE_URL: "ftp://example.com" })).toThrow(
      /GOTRUE_SMS_TWILIO_BASE_URL.*http or https/,
    );
    expect(() => readAuthConfig({ ...BASE_ENV, ...provider, AUTH_SMS_TEMPLATE: "{{ if .Code }}{{ .Code }}" })).toThrow(
      /AUTH_SMS_TEMPLATE cannot be parsed/,
    );
    // Without a provider GoTrue does not parse the template either.
    expect(readAuthConfig({ ...BASE_ENV, AUTH_SMS_TEMPLATE: "{{ if .Code }}" }).sms.template).toBe("{{ if .Code }}");
  });
});

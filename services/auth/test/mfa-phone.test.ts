/**
 * Phone MFA factors through @supabase/auth-js, the codes texted through a local stand-in of
 * Twilio's Messages API (node:http): MFA_PHONE_TEMPLATE, MFA_PHONE_OTP_LENGTH, the resend
 * frequency, wrong codes, a provider failure leaving no challenge, and duplicate numbers.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "@platform/core";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, email, one, openTestDatabase, phone, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

const SID = "AC0123456789abcdef0123456789abcdef";

interface Texted {
  to: string;
  body: string;
}

/** Twilio's Messages API on 127.0.0.1: records each text; `failNext` makes the next one fail as Twilio does. */
async function startTwilio() {
  const texts: Texted[] = [];
  let failNext = false;
  const server: Server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      raw += chunk;
    });
    request.on("end", () => {
      const form = new URLSearchParams(raw);
      const ok = request.url === `/2010-04-01/Accounts/${SID}/Messages.json` && !failNext;
      failNext = false;
      if (ok) texts.push({ to: form.get("To") ?? "", body: form.get("Body") ?? "" });
      response.writeHead(ok ? 201 : 400, { "content-type": "application/json" });
      response.end(
        JSON.stringify(ok ? { sid: `SM${texts.length}`, status: "queued" } : { code: 21211, message: "Invalid 'To' Phone Number" }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    texts,
    failNext: () => {
      failNext = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(backends)("MFA with phone factors on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    twilio = await startTwilio();
    server = await startTestServer(
      database.db,
      {
        AUTH_SMS_PROVIDER: "twilio",
        AUTH_SMS_TWILIO_ACCOUNT_SID: SID,
        AUTH_SMS_TWILIO_AUTH_TOKEN: "twilio-token",
        AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "MG0123456789abcdef0123456789abcdef",
        AUTH_SMS_TWILIO_BASE_URL: twilio.url,
        AUTH_MFA_PHONE_ENROLL_ENABLED: "true",
        AUTH_MFA_PHONE_VERIFY_ENABLED: "true",
        AUTH_MFA_PHONE_OTP_LENGTH: "8",
        AUTH_MFA_PHONE_TEMPLATE: "Your sign-in code: {{ .Code }}",
      },
      { deliver: true },
    );
  });
  afterAll(async () => {
    await server?.close();
    await twilio?.close();
    await database?.dispose();
  });

  async function withPhoneFactor() {
    const client = server.client();
    const { error } = await client.signUp({ email: email("mfa-phone"), password: "secret-1" });
    expect(error).toBeNull();
    const number = phone();
    const { data, error: enrollError } = await client.mfa.enroll({ factorType: "phone", phone: number });
    expect(enrollError).toBeNull();
    return { client, number, factorId: data?.id as string };
  }

  const lastCode = (number: string) => {
    const text = twilio.texts.filter((t) => t.to === number).at(-1);
    return /^Your sign-in code: (\d{8})$/.exec(text?.body ?? "")?.[1] as string;
  };

  it("texts a code with MFA_PHONE_TEMPLATE; verifying it raises the session to aal2", async () => {
    const { client, number, factorId } = await withPhoneFactor();
    const { data: challenge, error } = await client.mfa.challenge({ factorId });
    expect(error).toBeNull();
    expect(challenge).toMatchObject({ type: "phone" });
    const code = lastCode(number);
    expect(code).toMatch(/^\d{8}$/);
    // Only a hash of the code is kept.
    const stored = await one<{ otp_code: string }>(
      database.db,
      sql`SELECT otp_code FROM ${server.table("mfa_challenges")} WHERE id = ${challenge?.id as string}`,
    );
    expect(stored.otp_code).not.toContain(code);
    const wrong = await client.mfa.verify({ factorId, challengeId: challenge?.id as string, code: "00000000" });
    expect(wrong.error).toMatchObject({ code: "mfa_verification_failed", message: "Invalid MFA Phone code entered" });
    const { data, error: verifyError } = await client.mfa.verify({ factorId, challengeId: challenge?.id as string, code });
    expect(verifyError).toBeNull();
    const claims = decodeJwt(data?.access_token as string) as { aal: string; amr: { method: string }[] };
    expect(claims.aal).toBe("aal2");
    expect(claims.amr[0]?.method).toBe("mfa/phone");
    const { data: factors } = await client.mfa.listFactors();
    expect(factors?.phone).toEqual([expect.objectContaining({ id: factorId, phone: number.slice(1), status: "verified" })]);
  });

  it("texts at most once per MFA_PHONE_MAX_FREQUENCY", async () => {
    const { client, factorId } = await withPhoneFactor();
    expect((await client.mfa.challenge({ factorId })).error).toBeNull();
    const { error } = await client.mfa.challenge({ factorId });
    expect(error).toMatchObject({ code: "over_sms_send_rate_limit", status: 429 });
    expect(error?.message).toMatch(/^For security purposes, you can only request this after (59|60) seconds\.$/);
  });

  it("keeps no challenge when the provider refuses the text", async () => {
    const { client, factorId } = await withPhoneFactor();
    twilio.failNext();
    const { error } = await client.mfa.challenge({ factorId });
    expect(error).toMatchObject({ code: "sms_send_failed", status: 422 });
    const count = await one<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM ${server.table("mfa_challenges")} WHERE factor_id = ${factorId}`,
    );
    expect(count.n).toBe(0);
    // Nothing was sent, so the frequency does not hold back the next try.
    expect((await client.mfa.challenge({ factorId })).error).toBeNull();
  });

  it("replaces an unverified factor for the same number and refuses a second verified one", async () => {
    const { client, number, factorId } = await withPhoneFactor();
    const again = await client.mfa.enroll({ factorType: "phone", phone: number, friendlyName: "again" });
    expect(again.error).toBeNull();
    const { data: listed } = await client.mfa.listFactors();
    expect(listed?.all.map((f) => f.id)).toEqual([again.data?.id]);
    expect(listed?.all.map((f) => f.id)).not.toContain(factorId);
    const secondId = again.data?.id as string;
    await client.mfa.challenge({ factorId: secondId });
    const challengeId = (
      await one<{ id: string }>(database.db, sql`SELECT id FROM ${server.table("mfa_challenges")} WHERE factor_id = ${secondId}`)
    ).id;
    expect((await client.mfa.verify({ factorId: secondId, challengeId, code: lastCode(number) })).error).toBeNull();
    const third = await client.mfa.enroll({ factorType: "phone", phone: number, friendlyName: "third" });
    expect(third.error).toMatchObject({ code: "mfa_verified_factor_exists", status: 422 });
  });
});

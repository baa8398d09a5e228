/**
 * The local start's mail catcher: with no SMTP_HOST and `mailCatcher: true`, mail is received by
 * an SMTP server inside the process and listed at /_mail; only on a loopback-bound API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, email, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

describe.each(backends)("the mail catcher on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let exposed: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(
      database.db,
      { AUTH_MAILER_AUTOCONFIRM: "false", AUTH_API_HOST: "127.0.0.1" },
      { deliver: true, mailCatcher: true },
    );
    exposed = await startTestServer(
      database.db,
      { AUTH_DB_NAMESPACE: "exposed", AUTH_MAILER_AUTOCONFIRM: "false", AUTH_API_HOST: "0.0.0.0" },
      { deliver: true, mailCatcher: true },
    );
  });
  afterAll(async () => {
    await Promise.all([server?.close(), exposed?.close()]);
    await database?.dispose();
  });

  it("lists caught mail newest first and serves each message; its link confirms the sign-up", async () => {
    const first = email("caught");
    const second = email("caught");
    await server.client().signUp({ email: first, password: "secret-1" });
    const client = server.client();
    await client.signUp({ email: second, password: "secret-1" });

    const list = await server.request("/_mail");
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toContain("text/html");
    const page = await list.text();
    expect(page.indexOf(second)).toBeGreaterThan(-1);
    expect(page.indexOf(second)).toBeLessThan(page.indexOf(first));
    expect(page).toContain("Confirm Your Signup");

    const id = /href="_mail\/(\d+)"/.exec(page)?.[1] as string;
    const message = await server.request(`/_mail/${id}`);
    expect(message.status).toBe(200);
    expect(message.headers.get("content-security-policy")).toBe("sandbox");
    const html = await message.text();
    const link = /href="([^"]*token=[^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") as string;
    const tokenHash = new URL(link).searchParams.get("token") as string;
    const verified = await client.verifyOtp({ type: "signup", token_hash: tokenHash });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(second);

    expect((await server.request("/_mail/999999")).status).toBe(404);
  });

  it("lists the same mail as JSON for scripts, one recipient's with ?to=", async () => {
    const address = email("json");
    await server.client().signUp({ email: address, password: "secret-1" });
    const response = await server.request(`/_mail.json?to=${encodeURIComponent(address.toUpperCase())}`);
    expect(response.status).toBe(200);
    const mails = (await response.json()) as Array<{ to: string; subject: string; link: string; received_at: string }>;
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: address, subject: "Confirm Your Signup", link: expect.stringContaining("/verify?token=") });
    const tokenHash = new URL(mails[0]?.link as string).searchParams.get("token") as string;
    expect((await server.client().verifyOtp({ type: "signup", token_hash: tokenHash })).error).toBeNull();
  });

  it("shows mail only to this machine: a request a proxy forwarded from elsewhere gets 404", async () => {
    const forwarded = (from: string) => server.request("/_mail.json", { headers: { "x-forwarded-for": from } });
    expect((await forwarded("127.0.0.1")).status).toBe(200);
    expect((await forwarded("127.0.0.1, ::1")).status).toBe(200);
    expect((await forwarded("203.0.113.7")).status).toBe(404);
    // A client cannot pass by putting a loopback address first: the proxy appends the real one.
    expect((await forwarded("127.0.0.1, 203.0.113.7")).status).toBe(404);
    expect((await server.request("/_mail", { headers: { "x-forwarded-for": "198.51.100.1" } })).status).toBe(404);
  });

  it("is not started when the API listens beyond loopback", async () => {
    expect((await exposed.request("/_mail")).status).toBe(404);
    // Mail then goes nowhere, as before (logged as not delivered): the sign-up itself works.
    expect((await exposed.client().signUp({ email: email("nowhere"), password: "secret-1" })).error).toBeNull();
  });
});

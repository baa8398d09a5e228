/**
 * Email subjects and bodies: the Go-template subset, MAILER_SUBJECTS_*, MAILER_TEMPLATES_* read
 * from a URL (cached; a URL that fails falls back to the built-in body) and MAILER_URLPATHS_*.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuthConfig } from "../src/config.js";
import { escapeHtml, parseTemplate } from "../src/mail/go-template.js";
import { adminApi } from "./support/admin.js";
import { BASE_ENV, backends, email, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";
import { startSmtpServer, type TestSmtpServer, tokenLink } from "./support/smtp.js";

describe("the Go-template subset", () => {
  it("prints variables and dotted lookups, HTML-escaped in bodies", () => {
    const template = parseTemplate('<a href="{{ .ConfirmationURL }}">{{ .Data.name }}</a>{{.Missing}}');
    expect(template.render({ ConfirmationURL: "http://x/verify?a=1&b=2", Data: { name: "<Ada>" } }, escapeHtml)).toBe(
      '<a href="http://x/verify?a=1&amp;b=2">&lt;Ada&gt;</a>',
    );
  });

  it("has if / else / end with Go's truthiness, comments and whitespace trimming", () => {
    const template = parseTemplate(
      "{{/* note */}}{{ if .Data.name }}Hi {{ .Data.name }}{{ else }}Hello{{ end }} \n {{- if .Token }}, {{ .Token }}{{ end -}} !",
    );
    expect(template.render({ Data: { name: "Ada" }, Token: "123456" })).toBe("Hi Ada, 123456!");
    expect(template.render({ Data: {}, Token: "" })).toBe("Hello!");
  });

  it("refuses what it does not implement rather than sending it half-rendered", () => {
    expect(() => parseTemplate("{{ range .X }}{{ end }}")).toThrow("unsupported");
    expect(() => parseTemplate("{{ if .X }}open")).toThrow("missing {{ end }}");
    expect(() => parseTemplate("{{ end }}")).toThrow("unexpected");
    expect(() => parseTemplate('{{ printf "%s" .X }}')).toThrow("unsupported");
  });
});

describe("mail settings", () => {
  it("need SMTP_ADMIN_EMAIL with SMTP_HOST, and read the reauthentication subject and template", () => {
    expect(() => readAuthConfig({ ...BASE_ENV, GOTRUE_SMTP_HOST: "smtp.example.com" })).toThrow(
      "AUTH_SMTP_ADMIN_EMAIL is required when AUTH_SMTP_HOST is set",
    );
    expect(readAuthConfig(BASE_ENV).mailDelivery.reauthenticationSubject).toBe("Confirm reauthentication");
    const config = readAuthConfig({
      ...BASE_ENV,
      GOTRUE_MAILER_SUBJECTS_REAUTHENTICATION: "{{ .Token }} is your code",
      AUTH_MAILER_TEMPLATES_REAUTHENTICATION: "https://example.com/reauth.html",
    });
    expect(config.mailDelivery).toEqual({
      reauthenticationSubject: "{{ .Token }} is your code",
      reauthenticationTemplate: "https://example.com/reauth.html",
    });
  });
});

describe.each(backends)("email templates and subjects on %s", (backend) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let templates: Server;
  let templateHits = 0;
  let server: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    smtp = await startSmtpServer();
    templates = createServer((request, response) => {
      if (request.url === "/confirmation.html") {
        templateHits++;
        response.end(
          '<p>{{ if .Data.name }}Welcome {{ .Data.name }}{{ else }}Welcome{{ end }} to {{ .SiteURL }}</p><a href="{{ .ConfirmationURL }}">go</a><code>{{ .TokenHash }}</code><i>{{ .RedirectTo }}</i>',
        );
      } else {
        response.statusCode = 500;
        response.end("down");
      }
    });
    await new Promise<void>((resolve) => templates.listen(0, "127.0.0.1", () => resolve()));
    const base = `http://127.0.0.1:${(templates.address() as AddressInfo).port}`;
    server = await startTestServer(
      database.db,
      {
        AUTH_MAILER_AUTOCONFIRM: "false",
        GOTRUE_SMTP_HOST: "127.0.0.1",
        GOTRUE_SMTP_PORT: String(smtp.port),
        GOTRUE_SMTP_ADMIN_EMAIL: "noreply@example.com",
        AUTH_MAILER_SUBJECTS_CONFIRMATION: "Confirm {{ .Email }}",
        AUTH_MAILER_SUBJECTS_INVITE: "Join us",
        AUTH_MAILER_TEMPLATES_CONFIRMATION: `${base}/confirmation.html`,
        AUTH_MAILER_TEMPLATES_INVITE: `${base}/broken.html`,
        AUTH_MAILER_URLPATHS_CONFIRMATION: "/auth/v1/verify",
        AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
      },
      { deliver: true },
    );
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    await new Promise((resolve) => templates?.close(resolve));
    await database?.dispose();
  });

  it("uses the subject setting and the template served at its URL, fetched once and cached", async () => {
    const first = email("tpl");
    const client = server.client();
    await client.signUp({ email: first, password: "secret-1", options: { data: { name: "Ada" } } });
    const mail = await smtp.next(first);
    expect(mail.from).toBe("noreply@example.com");
    expect(mail.subject).toBe(`Confirm ${first}`);
    expect(mail.html).toContain("Welcome Ada to http://localhost:3000");
    expect(mail.html).toContain("<i>http://localhost:3000</i>");
    const link = tokenLink(mail);
    expect(link).toMatch(/^http:\/\/localhost:8081\/auth\/v1\/verify\?token=[0-9a-f]{56}&type=signup&redirect_to=http:\/\/localhost:3000$/);
    expect(mail.html).toContain(`<code>${new URL(link).searchParams.get("token")}</code>`);
    const verified = await client.verifyOtp({ type: "signup", token_hash: new URL(link).searchParams.get("token") as string });
    expect(verified.error).toBeNull();

    const second = email("tpl");
    await server.client().signUp({ email: second, password: "secret-1" });
    expect((await smtp.next(second)).html).toContain("Welcome to http://localhost:3000");
    expect(templateHits).toBe(1);
  });

  it("falls back to the built-in body when the template URL fails, and still sends", async () => {
    const address = email("fallback");
    const admin = await adminApi(server);
    const { error } = await admin.inviteUserByEmail(address, { redirectTo: "http://localhost:3000/in?x=1&y=2" });
    expect(error).toBeNull();
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Join us");
    expect(mail.html).toContain("Accept the invitation");
    // redirect_to holding & or = is query-escaped, as GoTrue's encodeRedirectURL does.
    expect(tokenLink(mail)).toContain("type=invite&redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fin%3Fx%3D1%26y%3D2");
  });
});

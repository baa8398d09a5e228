/**
 * GET /_mail (the caught mails, newest first) and GET /_mail/<id> (one mail's HTML), only when
 * the local start runs the mail catcher. A mail is shown sandboxed: it cannot run scripts on the
 * auth service's origin.
 */
import type { FastifyInstance } from "fastify";
import { errors } from "../domain/errors.js";
import type { Mailbox } from "../mail/delivery.js";
import { escapeHtml } from "../mail/go-template.js";

function listPage(catcher: Mailbox): string {
  const rows = catcher
    .list()
    .map(
      (mail) =>
        `<tr><td>${escapeHtml(mail.receivedAt)}</td><td>${escapeHtml(mail.to)}</td><td><a href="_mail/${mail.id}">${escapeHtml(mail.subject || "(no subject)")}</a></td><td>${
          mail.link ? `<a href="${escapeHtml(mail.link)}">link</a>` : ""
        }</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Caught mail</title></head>
<body style="font-family: sans-serif">
<h1>Caught mail</h1>
<p>Emails the auth service would have sent (no SMTP_HOST is configured). Newest first; only the last ones are kept, in memory.</p>
<table cellpadding="4"><tr><th>Received</th><th>To</th><th>Subject</th><th></th></tr>
${rows || '<tr><td colspan="4">No mail yet.</td></tr>'}
</table>
</body></html>
`;
}

export function registerMailCatcherRoutes(app: FastifyInstance, catcher: Mailbox): void {
  app.get("/_mail", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(listPage(catcher)),
  );
  app.get<{ Params: { id: string } }>("/_mail/:id", async (request, reply) => {
    const mail = /^\d+$/.test(request.params.id) ? catcher.get(Number(request.params.id)) : undefined;
    if (!mail) throw errors.notFound();
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-security-policy", "sandbox")
      .send(mail.html);
  });
}

/**
 * GET /_mail (the caught mails, newest first), GET /_mail.json (the same for scripts: id, time,
 * from, to, subject and link; `?to=` keeps one recipient's) and GET /_mail/<id> (one mail's HTML),
 * only when the local start runs the mail catcher. A mail is shown sandboxed: it cannot run
 * scripts on the auth service's origin.
 *
 * Caught mail carries sign-in links, so it is shown only to this machine: the connection must
 * come from a loopback address and so must every address a proxy recorded in X-Forwarded-For (the
 * gateway adds the client's; a request from elsewhere through a gateway open to the network gets
 * 404, as if there were no mail page).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
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

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/;

function fromThisMachine(request: FastifyRequest): boolean {
  const forwarded = request.headers["x-forwarded-for"];
  const hops = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? "")).split(",").map((hop) => hop.trim());
  return [request.socket.remoteAddress ?? "", ...hops.filter((hop) => hop !== "")].every((address) => LOOPBACK.test(address));
}

export function registerMailCatcherRoutes(app: FastifyInstance, catcher: Mailbox): void {
  app.addHook("onRequest", async (request) => {
    if (request.url.startsWith("/_mail") && !fromThisMachine(request)) throw errors.notFound();
  });
  app.get("/_mail", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(listPage(catcher)),
  );
  app.get<{ Querystring: { to?: string } }>("/_mail.json", async (request, reply) => {
    const to = typeof request.query.to === "string" ? request.query.to.toLowerCase() : undefined;
    const mails = catcher.list().filter((mail) => to === undefined || mail.to.toLowerCase().includes(to));
    reply.header("cache-control", "no-store");
    return mails.map(({ id, receivedAt, from, to: recipient, subject, link }) => ({
      id,
      received_at: receivedAt,
      from,
      to: recipient,
      subject,
      link: link ?? null,
    }));
  });
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

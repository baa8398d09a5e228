/**
 * The console: GraphiQL with the explorer plugin at /console, every script and style served
 * from /console/assets/ (console-assets.ts), so it works without internet. `GET /` leads to it,
 * as Hasura's root does. URLs in the page are relative to it, so the console also works through
 * a proxy that forwards /console, /console/* and /v1/graphql.
 *
 * With `adminSecret` (only the local all-in-one start passes one, a secret it generated) the
 * page comes with that secret in GraphiQL's headers editor. It is then only given to requests
 * naming a loopback host, never cached, and never readable by other origins through CORS.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { resourceNotFound } from "../engine/errors/index.js";
import { type ConsoleAsset, consoleAssets } from "./console-assets.js";

export interface ConsoleOptions {
  /** The admin secret to prefill in the headers editor. */
  adminSecret?: string | undefined;
}

// Scripts only from this server (the page has none inline); GraphiQL sets inline styles.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

/** JSON safe inside a <script> element: nothing in it can end the element or start a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The page; `adminSecret` null leaves the headers editor to the user. */
export function consoleHtml(adminSecret: string | null): string {
  const { styles, scripts } = consoleAssets();
  const href = (a: ConsoleAsset) => escapeHtml(`console/assets/${a.name}`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>GraphiQL</title>
${styles.map((a) => `  <link rel="stylesheet" href="${href(a)}" />`).join("\n")}
</head>
<body>
  <div id="graphiql">Loading GraphiQL...</div>
  <script id="console-config" type="application/json">${scriptJson({ adminSecret })}</script>
${scripts.map((a) => `  <script src="${href(a)}"></script>`).join("\n")}
</body>
</html>
`;
}

const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The `host=` values of an RFC 7239 `Forwarded` header. */
function forwardedHosts(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(",") : (header ?? "");
  return [...text.matchAll(/(?:^|[;,\s])host=("[^"]*"|[^;,\s]*)/gi)].map((m) => (m[1] as string).replace(/^"|"$/g, ""));
}

/**
 * Whether the request names this machine: its Host and every host a proxy says it was asked
 * for (X-Forwarded-Host, Forwarded). A DNS-rebound name or a public proxy's name does not.
 */
function fromLoopbackName(request: FastifyRequest): boolean {
  const hostname = (value: string) => value.trim().replace(/:\d+$/, "");
  const xForwarded = request.headers["x-forwarded-host"];
  const names = [
    request.headers.host ?? "",
    ...(xForwarded === undefined ? [] : [xForwarded].flat().join(",").split(",")),
    ...forwardedHosts(request.headers.forwarded),
  ];
  return names.every((name) => LOOPBACK.test(hostname(name)));
}

export function registerConsole(app: FastifyInstance, options: ConsoleOptions): void {
  // Relative, as Hasura's `Spock.redirect "console"` (server/src-lib/Hasura/Server/App.hs): also right under a path prefix.
  app.get("/", async (_request, reply) => reply.redirect("console", 302));

  app.get("/console", async (request, reply) => {
    const prefill = options.adminSecret && fromLoopbackName(request) ? options.adminSecret : null;
    // The page may carry the admin secret: no other origin may read it, nothing may keep it.
    for (const name of ["access-control-allow-origin", "access-control-allow-credentials"]) reply.removeHeader(name);
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-security-policy", CONTENT_SECURITY_POLICY)
      .header("referrer-policy", "no-referrer")
      .header("x-content-type-options", "nosniff")
      .send(consoleHtml(prefill));
  });

  app.get<{ Params: { name: string } }>("/console/assets/:name", async (request, reply) => {
    const asset = consoleAssets().byName.get(request.params.name);
    if (!asset) throw resourceNotFound();
    return reply
      .type(asset.contentType)
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("x-content-type-options", "nosniff")
      .send(asset.body);
  });
}

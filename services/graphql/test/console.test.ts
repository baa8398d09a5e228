/**
 * The console over HTTP: `/` leads to it (relative Location, as Hasura's `Spock.redirect
 * "console"` in server/src-lib/Hasura/Server/App.hs), the page loads only same-origin assets
 * named relative to it, assets are cached forever, unknown ones answer Hasura's 404 body, and
 * the admin secret is in the page only when the start passed one and the request names a
 * loopback host.
 */
import { createLogger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { consoleHtml } from "../src/http/console.js";
import { consoleAssets } from "../src/http/console-assets.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";

const ADMIN_SECRET = "console-test-admin-secret";
const NOT_FOUND = { path: "$", error: "resource does not exist", code: "not-found" };

let database: TestDatabase;
const closers: (() => Promise<void>)[] = [];

async function open(env: Record<string, string>, consoleAdminSecret?: string): Promise<FastifyInstance> {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    ...env,
  });
  const service = await createGraphql(config, createLogger({ level: "silent" }), { db: database.db, consoleAdminSecret });
  closers.push(() => service.close());
  return service.app;
}

/** The src/href attributes of the page's scripts and stylesheets. */
const assetUrls = (html: string): string[] =>
  [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] as string);

/** The settings the page hands its script (the JSON block #console-config). */
function pageConfig(html: string): { adminSecret: string | null } {
  const match = /<script id="console-config" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error("no #console-config block");
  return JSON.parse(match[1] as string);
}

beforeAll(async () => {
  database = await openTestDatabase("pglite");
});
afterAll(async () => {
  for (const close of closers) await close();
  await database?.dispose();
});

describe("the console page and its assets", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await open({});
  });

  it("sends / to the console", async () => {
    const res = await app.inject({ method: "GET", url: "/" });
    expect(res.statusCode).toBe(302);
    expect(new URL(res.headers.location as string, "http://localhost:8080/").pathname).toBe("/console");
  });

  it("serves the page uncached, under a CSP allowing nothing but this origin's scripts", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/console",
      headers: { host: "localhost:8080", origin: "https://elsewhere.example" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    // Other origins may never read the page (it can carry the admin secret).
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const csp = String(res.headers["content-security-policy"]).split(/;\s*/);
    expect(csp).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "connect-src 'self'", "base-uri 'none'"]));
    // Every script either loads from a URL or is the JSON settings block: nothing inline runs.
    const scripts = [...res.body.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1] as string);
    expect(scripts.every((attrs) => /\bsrc="/.test(attrs) || /type="application\/json"/.test(attrs))).toBe(true);
    expect(pageConfig(res.body)).toEqual({ adminSecret: null });
  });

  it("names every asset relative to the page, and serves each with its type, cached forever", async () => {
    const page = await app.inject({ method: "GET", url: "/console" });
    const urls = assetUrls(page.body);
    const { styles, scripts } = consoleAssets();
    expect(urls).toHaveLength(styles.length + scripts.length);
    for (const url of urls) {
      expect(url).toMatch(/^console\/assets\/[\w.-]+\.[0-9a-f]{10}\.(js|css)$/);
      const path = new URL(url, "http://localhost:8080/console").pathname;
      const res = await app.inject({ method: "GET", url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toBe(url.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(res.rawPayload.length).toBeGreaterThan(0);
    }
  });

  it("answers an unknown asset with Hasura's 404 body", async () => {
    for (const url of ["/console/assets/graphiql.min.0000000000.js", "/console/assets/..%2f..%2fpackage.json"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });
});

describe("the admin secret in the console", () => {
  let prefilled: FastifyInstance;
  let plain: FastifyInstance;
  beforeAll(async () => {
    prefilled = await open({}, ADMIN_SECRET);
    plain = await open({});
  });
  const secretFor = async (app: FastifyInstance, headers: Record<string, string>) =>
    pageConfig((await app.inject({ method: "GET", url: "/console", headers })).body).adminSecret;

  it("is prefilled for requests naming a loopback host", async () => {
    for (const host of ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "localhost", "app.localhost:54321"]) {
      expect(await secretFor(prefilled, { host }), host).toBe(ADMIN_SECRET);
    }
    expect(await secretFor(prefilled, { host: "127.0.0.1:54321", "x-forwarded-host": "localhost:54321" })).toBe(ADMIN_SECRET);
  });

  it("is never prefilled for another host, a forwarded one included", async () => {
    const cases: Record<string, string>[] = [
      { host: "graphql.example.com" },
      { host: "localhost.example.com" },
      { host: "127.0.0.1.nip.io" },
      { host: "192.168.1.20:8080" },
      { host: "localhost:8080", "x-forwarded-host": "graphql.example.com" },
      { host: "localhost:8080", "x-forwarded-host": "localhost, graphql.example.com" },
      { host: "localhost:8080", "x-forwarded-host": "" },
      { host: "localhost:8080", forwarded: 'for=10.0.0.1;host="graphql.example.com";proto=https' },
    ];
    for (const headers of cases) expect(await secretFor(prefilled, headers), JSON.stringify(headers)).toBeNull();
  });

  it("is never prefilled without the option", async () => {
    expect(await secretFor(plain, { host: "localhost:8080" })).toBeNull();
  });

  it("cannot end the settings block, whatever the secret holds", () => {
    const secret = `s3cret</script><script>alert(1)</script><!-- "quoted" 'single' & \u2028`;
    const html = consoleHtml(secret);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<!--");
    expect(pageConfig(html)).toEqual({ adminSecret: secret });
    // The block is followed by the asset scripts only: nothing the secret held became a tag.
    expect(html.match(/<script\b/g)).toHaveLength(1 + consoleAssets().scripts.length);
  });
});

describe("with HASURA_GRAPHQL_ENABLE_CONSOLE=false", () => {
  it("serves no console, no assets and no redirect", async () => {
    const app = await open({ HASURA_GRAPHQL_ENABLE_CONSOLE: "false" }, ADMIN_SECRET);
    const asset = consoleAssets().scripts[0]?.name;
    for (const url of ["/", "/console", `/console/assets/${asset}`]) {
      const res = await app.inject({ method: "GET", url, headers: { host: "localhost:8080" } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });
});

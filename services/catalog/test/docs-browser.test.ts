/**
 * /docs in a real browser (Debian's Chromium through playwright-core), offline: Swagger UI must
 * render every operation from local assets only, and "Try it out" / "Execute" must call the API,
 * both directly and behind a proxy that strips `/catalog` and sends X-Forwarded-Prefix (as the
 * gateway does), where the call must go to /catalog/....
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, browserUnavailableReason, launchChromium, openOfflinePage, type Page } from "@platform/core/browser-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureCatalog, openFixtureCatalog } from "./support/fixture.js";

const reason = browserUnavailableReason();
if (reason) console.warn(`docs-browser.test.ts skipped: ${reason}`);

const OPERATIONS = 13;
const PREFIX = "/catalog";

interface Proxy {
  origin: string;
  /** Paths the proxy was asked for, with the prefix. */
  seen: string[];
  close(): Promise<void>;
}

/** A minimal stand-in for the gateway: strips PREFIX and says so in X-Forwarded-Prefix. */
async function prefixProxy(upstream: string): Promise<Proxy> {
  const seen: string[] = [];
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    seen.push(url);
    if (url !== PREFIX && !url.startsWith(`${PREFIX}/`) && !url.startsWith(`${PREFIX}?`)) {
      res.writeHead(404).end();
      return;
    }
    const rest = url.slice(PREFIX.length);
    const target = new URL(rest.startsWith("/") ? rest : `/${rest}`, upstream);
    const headers = { ...req.headers, "x-forwarded-prefix": PREFIX };
    const out = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Opens the docs, checks every operation rendered, runs GET /healthz from the UI; returns the URL it called. */
async function tryItOut(page: Page, docsUrl: string): Promise<string> {
  await page.goto(docsUrl);
  await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
  expect(await page.locator(".opblock").count()).toBe(OPERATIONS);
  expect(await page.locator(".opblock-get").count()).toBe(OPERATIONS);
  const health = page.locator("#operations-health-healthz_healthz_get");
  await health.locator(".opblock-summary").first().click();
  await health.locator("button.try-out__btn").click();
  const called = page.waitForRequest((r) => r.url().endsWith("/healthz"));
  await health.locator("button.execute").click();
  const requestUrl = (await called).url();
  const answer = health.locator(".live-responses-table tbody tr.response").first();
  await answer.waitFor();
  expect((await answer.locator(".response-col_status").innerText()).trim()).toBe("200");
  expect(await answer.locator(".microlight").first().innerText()).toContain('"status": "ok"');
  // The request URL Swagger UI shows (and a curl line) are what the user copies.
  expect(await health.locator(".request-url pre").innerText()).toBe(requestUrl);
  return requestUrl;
}

describe.skipIf(reason)("GET /docs in Chromium", () => {
  let catalog: FixtureCatalog;
  let origin = "";
  let proxy: Proxy;
  let browser: Browser;

  beforeAll(async () => {
    catalog = await openFixtureCatalog("sqlite");
    origin = (await catalog.app.listen({ host: "127.0.0.1", port: 0 })).replace("localhost", "127.0.0.1");
    proxy = await prefixProxy(origin);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await catalog?.close();
  });

  it("renders every operation from local assets and executes a request", async () => {
    const offline = await openOfflinePage(browser, [origin]);
    try {
      const called = await tryItOut(offline.page, `${origin}/docs`);
      expect(called).toBe(`${origin}/healthz`);
      expect(offline.blocked).toEqual([]);
      expect(offline.errors).toEqual([]);
    } finally {
      await offline.close();
    }
  });

  it("works behind a proxy under /catalog: assets, document and the executed call keep the prefix", async () => {
    const offline = await openOfflinePage(browser, [proxy.origin]);
    try {
      const called = await tryItOut(offline.page, `${proxy.origin}${PREFIX}/docs`);
      expect(called).toBe(`${proxy.origin}${PREFIX}/healthz`);
      expect(offline.blocked).toEqual([]);
      expect(offline.errors).toEqual([]);
      expect(proxy.seen).toContain(`${PREFIX}/docs/json`);
      expect(proxy.seen).toContain(`${PREFIX}/docs/static/swagger-ui-bundle.js`);
      expect(proxy.seen.filter((path) => !path.startsWith(PREFIX))).toEqual([]);
    } finally {
      await offline.close();
    }
  });
});

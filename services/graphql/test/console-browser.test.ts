/**
 * The console in a real browser, offline: Chromium may reach only the service (and, in the
 * second case, a path-prefix proxy in front of it). GraphiQL and the explorer must render from
 * the service's own assets, a query typed into the editor must run with the prefilled admin
 * secret and show its data, and nothing may be blocked or throw.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@platform/core";
import { type Browser, browserUnavailableReason, launchChromium, openOfflinePage, type Page } from "@platform/core/browser-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { type RunningGraphql, startGraphql } from "../src/server.js";

// Characters that would break out of the page if they were not escaped; the query only runs if they arrive intact.
const ADMIN_SECRET = `s3cret</script><script>alert(1)</script>"'&`;
const QUERY = "{ note(order_by: {id: asc}) { body } }";
const EXPECTED = { data: { note: [{ body: "hello from the console" }, { body: "second" }] } };

const unavailable = browserUnavailableReason();
if (unavailable) console.warn(`console-browser.test.ts skipped: ${unavailable}`);

/** A proxy serving the service under /hasura/, as a gateway with a path prefix would. */
async function startPrefixProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    if (!path.startsWith("/hasura/")) {
      res.writeHead(404).end();
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: path.slice("/hasura".length), headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of the CodeMirror editor inside `selector` (GraphiQL 3 edits with CodeMirror 5). */
const editorText = (page: Page, selector: string) =>
  page
    .locator(`${selector} .CodeMirror`)
    .evaluate((element) => (element as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());

async function runQueryInConsole(page: Page, consoleUrl: string): Promise<{ sentSecret: string | undefined; response: unknown }> {
  let sentSecret: string | undefined;
  page.on("request", (req) => {
    if (req.method() === "POST" && new URL(req.url()).pathname.endsWith("/v1/graphql")) sentSecret = req.headers()["x-hasura-admin-secret"];
  });
  await page.goto(consoleUrl);
  await page.locator(".graphiql-query-editor .CodeMirror").waitFor();
  // The explorer plugin is open and lists the tracked table once the schema has been introspected.
  await page.locator(".graphiql-plugin").getByText("note", { exact: true }).first().waitFor();

  await page.locator(".graphiql-query-editor .CodeMirror").click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  // Entered as typed text (insertText: GraphiQL's bracket auto-closing would double typed closers).
  await page.keyboard.insertText(QUERY);
  expect(await editorText(page, ".graphiql-query-editor")).toBe(QUERY);
  await page.keyboard.press("ControlOrMeta+Enter");

  const response = page.locator(".graphiql-response .CodeMirror");
  await expect.poll(async () => (await response.textContent()) ?? "", { timeout: 15_000 }).toContain("hello from the console");
  return { sentSecret, response: JSON.parse(await editorText(page, ".graphiql-response")) };
}

describe.skipIf(unavailable)("the console in Chromium, offline", () => {
  let service: RunningGraphql;
  let browser: Browser;

  beforeAll(async () => {
    const config = readGraphqlConfig({
      HASURA_GRAPHQL_DATA_DIR: "memory://",
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
      HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
      HASURA_GRAPHQL_SERVER_PORT: "0",
      HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    });
    service = await startGraphql(config, createLogger({ level: "silent" }), { consoleAdminSecret: ADMIN_SECRET });
    const admin = (url: string, body: unknown) =>
      fetch(`${service.url}${url}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hasura-admin-secret": ADMIN_SECRET },
        body: JSON.stringify(body),
      });
    const sql =
      "CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL); INSERT INTO note (body) VALUES ('hello from the console'), ('second');";
    expect((await admin("/v2/query", { type: "run_sql", args: { sql } })).status).toBe(200);
    expect((await admin("/v1/metadata", { type: "pg_track_table", args: { source: "default", table: "note" } })).status).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it("renders GraphiQL with the explorer and runs a typed query with the prefilled secret", { timeout: 90_000 }, async () => {
    const offline = await openOfflinePage(browser, [service.url]);
    const dialogs: string[] = [];
    offline.page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      const { sentSecret, response } = await runQueryInConsole(offline.page, `${service.url}/console`);
      expect(response).toEqual(EXPECTED);
      expect(sentSecret).toBe(ADMIN_SECRET);
      expect(offline.blocked).toEqual([]);
      expect(offline.errors).toEqual([]);
      expect(dialogs).toEqual([]);
    } finally {
      await offline.close();
    }
  });

  it("runs a subscription over the engine's WebSocket and shows each change", { timeout: 90_000 }, async () => {
    const offline = await openOfflinePage(browser, [service.url]);
    try {
      const { page } = offline;
      await page.goto(`${service.url}/console`);
      await page.locator(".graphiql-plugin").getByText("note", { exact: true }).first().waitFor();
      await page.locator(".graphiql-query-editor .CodeMirror").click();
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.press("Delete");
      await page.keyboard.insertText("subscription { note(order_by: {id: asc}) { body } }");
      await page.keyboard.press("ControlOrMeta+Enter");
      const response = page.locator(".graphiql-response .CodeMirror");
      await expect.poll(async () => (await response.textContent()) ?? "", { timeout: 15_000 }).toContain("hello from the console");
      const inserted = await fetch(`${service.url}/v1/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hasura-admin-secret": ADMIN_SECRET },
        body: JSON.stringify({ query: 'mutation { insert_note_one(object: {body: "pushed live"}) { id } }' }),
      });
      expect(inserted.status).toBe(200);
      await expect.poll(async () => (await response.textContent()) ?? "", { timeout: 15_000 }).toContain("pushed live");
      expect(offline.blocked).toEqual([]);
      expect(offline.errors).toEqual([]);
    } finally {
      await offline.close();
      // The other cases read the table as it was.
      await fetch(`${service.url}/v1/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hasura-admin-secret": ADMIN_SECRET },
        body: JSON.stringify({ query: 'mutation { delete_note(where: {body: {_eq: "pushed live"}}) { affected_rows } }' }),
      });
    }
  });

  it("works under a path prefix, everything relative to the page", { timeout: 90_000 }, async () => {
    const proxy = await startPrefixProxy(new URL(service.url));
    const offline = await openOfflinePage(browser, [proxy.url]);
    try {
      const { response } = await runQueryInConsole(offline.page, `${proxy.url}/hasura/console`);
      expect(response).toEqual(EXPECTED);
      expect(offline.blocked).toEqual([]);
      expect(offline.errors).toEqual([]);
    } finally {
      await offline.close();
      await proxy.close();
    }
  });
});

/**
 * The README's first-run steps, run as they are written there against a real `npm start` (only
 * the gateway's port differs: the test's platform listens on a free one), and the console opened
 * through the gateway in a real browser with no network access beyond the platform.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Browser, browserUnavailableReason, launchChromium, openOfflinePage } from "@platform/core/browser-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, freePorts, type Platform, portEnv, ROOT, startPlatform } from "./support/platform.js";

const run = promisify(execFile);
const README_GATEWAY = "http://localhost:54321";

/** The README's code blocks marked `<!-- first-run: name -->`, by name. */
function firstRunBlocks(markdown: string): Map<string, { lang: string; code: string }> {
  const blocks = new Map<string, { lang: string; code: string }>();
  for (const match of markdown.matchAll(/<!-- first-run: ([\w-]+) -->\n```(\w+)\n([\s\S]*?)\n```/g)) {
    blocks.set(match[1] as string, { lang: match[2] as string, code: match[3] as string });
  }
  return blocks;
}

const blocks = firstRunBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
const dir = mkdtempSync(join(tmpdir(), "platform-first-run-"));
const dataDir = join(dir, "data");
let platform: Platform;

function block(name: string): string {
  const found = blocks.get(name);
  if (!found) throw new Error(`README.md has no block marked <!-- first-run: ${name} -->`);
  return found.code.replaceAll(README_GATEWAY, platform.gateway);
}

/** A README step in bash, after the keys step, from the repository root (as a reader runs it). */
async function step(command: string): Promise<string> {
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", `${block("keys")}\n${command}`], {
    cwd: ROOT,
    env: { ...cleanEnv(), PLATFORM_DATA_DIR: dataDir },
    timeout: 60_000,
  });
  return stdout;
}

beforeAll(async () => {
  platform = await startPlatform({ PLATFORM_DATA_DIR: dataDir, ...portEnv(await freePorts()) });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's first run", () => {
  it("has every step this test runs", () => {
    expect([...blocks.keys()]).toEqual(["keys", "curl", "supabase-js", "subscription", "graphql-admin", "catalog"]);
    expect(blocks.get("supabase-js")?.lang).toBe("js");
  });

  it("signs up with curl, is a player at once and creates a quest", async () => {
    const [me, created] = (await step(block("curl"))).trim().split("\n");
    const answer = JSON.parse(me as string) as { data: { me: Array<{ id: string }>; quest_aggregate: { aggregate: { count: number } } } };
    expect(answer.data.me).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    expect(answer.data.quest_aggregate.aggregate.count).toBeGreaterThan(0);
    expect(JSON.parse(created as string)).toEqual({
      data: { createQuest: { success: true, error: null, quest: { title: "Say hello", guild: { name: "MetaFam" } } } },
    });
  });

  it("signs up with supabase-js and creates a quest with the session", async () => {
    // The reader saves the block as first-run.mjs in the repository root; the test uses a name of its own.
    const file = join(ROOT, `.first-run-${process.pid}.mjs`);
    writeFileSync(file, block("supabase-js"));
    try {
      const lines = (await step(`node ${JSON.stringify(file)}`)).trim().split("\n");
      expect(lines[0], lines.join("\n")).toMatch(/^signed up: ada@example\.com [0-9a-f-]{36}$/);
      expect(JSON.parse(lines[1] as string)).toEqual({
        data: { createQuest: { success: true, error: null, quest_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } },
      });
      expect(JSON.parse(lines[2] as string)).toEqual({
        data: {
          me: [
            {
              player: {
                quests: [
                  {
                    title: "Write a guide to the platform",
                    status: "OPEN",
                    repetition: "UNIQUE",
                    quest_roles: [{ role: "WRITER" }, { role: "BUILDER" }],
                    quest_skills: expect.arrayContaining([{ skill: { name: "TypeScript" } }, { skill: { name: "Technical Writing" } }]),
                  },
                ],
              },
            },
          ],
        },
      });
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("subscribes with graphql-ws through the gateway, with the session's JWT, and sees a new quest arrive", async () => {
    const file = join(ROOT, `.first-run-subscribe-${process.pid}.mjs`);
    writeFileSync(file, block("subscription"));
    try {
      const [now, later] = (await step(`node ${JSON.stringify(file)}`)).trim().split("\n");
      const titles = (line: string | undefined) =>
        (
          JSON.parse(line as string) as { data: { me: Array<{ player: { quests: Array<{ title: string }> } }> } }
        ).data.me[0]?.player.quests.map((q) => q.title);
      expect(titles(now)).toEqual(["Write a guide to the platform"]);
      expect(titles(later)).toEqual(["Stream it live", "Write a guide to the platform"]);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("queries GraphQL as admin with the service_role key", async () => {
    const answer = JSON.parse(await step(block("graphql-admin"))) as {
      data: { player_aggregate: { aggregate: { count: number } }; QuestStatus: unknown };
    };
    // The demo's 50 players and the two who signed up above.
    expect(answer.data.player_aggregate.aggregate.count).toBe(52);
    expect(answer.data.QuestStatus).toEqual([{ status: "OPEN" }, { status: "CLOSED" }]);
  });

  it("queries the catalog through the gateway", async () => {
    const body = JSON.parse(await step(block("catalog"))) as { items: Array<{ price: string | null }>; meta: { total: number } };
    expect(body.items).toHaveLength(2);
    expect(body.meta.total).toBeGreaterThan(1000);
  });
});

const noBrowser = browserUnavailableReason();
if (noBrowser) console.warn(`skipping the console browser test: ${noBrowser}`);

describe.skipIf(noBrowser !== null)("the console through the gateway, offline", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("loads from / with the admin secret filled in and runs a query", async () => {
    const { page, blocked, errors, close } = await openOfflinePage(browser, [platform.gateway]);
    try {
      await page.goto(`${platform.gateway}/`);
      expect(new URL(page.url()).pathname).toBe("/console");
      await page.locator(".graphiql-query-editor .CodeMirror").first().waitFor({ timeout: 30_000 });
      // The query editor through CodeMirror's own API, then GraphiQL's run button.
      const query = "{ quest_aggregate { aggregate { count } } }";
      await page.evaluate(`document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.setValue(${JSON.stringify(query)})`);
      await page.locator(".graphiql-execute-button").click();
      const result = page.locator(".graphiql-response .CodeMirror");
      await expect.poll(async () => result.innerText(), { timeout: 15_000 }).toContain('"count"');
      // Admin: the aggregate is an admin-visible field and no error came back.
      expect(await result.innerText()).not.toContain("errors");
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("serves the catalog's API documents under /catalog/docs, calling the API through the gateway", async () => {
    const { page, blocked, errors, close } = await openOfflinePage(browser, [platform.gateway]);
    try {
      await page.goto(`${platform.gateway}/catalog/docs`);
      const health = page.locator("#operations-health-healthz_healthz_get");
      await health.waitFor({ timeout: 30_000 });
      await health.locator(".opblock-summary").first().click();
      await health.locator("button.try-out__btn").click();
      const called = page.waitForRequest((request) => request.url().endsWith("/healthz"));
      await health.locator("button.execute").click();
      expect((await called).url()).toBe(`${platform.gateway}/catalog/healthz`);
      const status = health.locator(".live-responses-table tbody tr.response .response-col_status").first();
      await expect.poll(async () => (await status.innerText()).trim(), { timeout: 15_000 }).toBe("200");
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});

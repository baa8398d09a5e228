/**
 * The service as a user runs it: `src/main.ts` in its own process, configured by the
 * environment, answering over real HTTP and stopping cleanly on SIGTERM.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateCatalog } from "../src/demo/generate.js";

const serviceDir = dirname(dirname(fileURLToPath(import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), "catalog-main-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run start:catalog", () => {
  it("serves the configured catalog over HTTP and shuts down on SIGTERM", async () => {
    const path = join(dir, "catalog.db");
    generateCatalog(path, { products: 30, stores: 2, regions: 2, snapshots: 300, endAt: new Date("2026-03-01T00:00:00Z") });
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: serviceDir,
      env: { ...process.env, ENDPOINT_CATALOG_DB: `sqlite:///${path}`, CATALOG_HOST: "127.0.0.1", CATALOG_PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("service did not start")), 20_000);
      createInterface({ input: child.stdout }).on("line", (line) => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get("x-request-id")).toBeTruthy();
    const products = (await (await fetch(`${base}/products?limit=5`)).json()) as { items: unknown[]; meta: { total: number } };
    expect(products.meta.total).toBe(30);
    expect(products.items).toHaveLength(5);
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Not Found" });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses to start on bad configuration, naming each problem", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: serviceDir,
      env: { ...process.env, ENDPOINT_CATALOG_DB: "mysql://x", CATALOG_PORT: "http" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("ENDPOINT_CATALOG_DB");
    expect(stderr).toContain("CATALOG_PORT");
  });
});

/** GET /healthz (deliberate fix: no driver text leaks; the service recovers when the database appears). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import type { FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { catalogDdl } from "../src/db/ddl.js";
import { openPostgresSource, openSqliteSource } from "../src/db/source.js";
import { backends, call, createPostgresDatabase, type Reply, silentLogger, useCatalog } from "./support/fixture.js";

/** Polls /healthz until it answers `status` or the deadline passes; returns the last reply. */
async function waitForHealth(app: FastifyInstance, status: number, timeoutMs = 5_000): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(app, "GET", "/healthz");
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function expectUnavailable(res: Reply, secrets: string[]): void {
  expect(res.status).toBe(503);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(["detail"]);
  const detail: string = res.body.detail;
  expect(detail).toMatch(/^catalog_unavailable/);
  expect(detail).not.toContain("SQLITE");
  expect(detail).not.toMatch(/no such|does not exist|relation "|SELECT |sqlite_/i);
  for (const secret of secrets) expect(detail).not.toContain(secret);
}

describe.each(backends)("GET /healthz [%s]", (backend) => {
  const catalog = useCatalog(backend);

  it("answers ok on a good catalog (original test)", async () => {
    const res = await catalog.get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("answers 503 without driver text while the catalog is missing, then 200 once it appears", async () => {
    if (backend === "sqlite") {
      const dir = mkdtempSync(join(tmpdir(), "catalog-health-"));
      const path = join(dir, "later.db");
      const source = await openSqliteSource(path);
      const app = await buildApp({ source, logger: silentLogger });
      try {
        expectUnavailable(await call(app, "GET", "/healthz"), [dir, "later.db"]);
        const file = new SqliteDatabase(path);
        file.exec(catalogDdl("sqlite"));
        file.close();
        const res = await waitForHealth(app, 200);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: "ok" });
      } finally {
        await app.close();
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      }
      return;
    }
    const { db, dispose } = await createPostgresDatabase();
    const source = await openPostgresSource(db);
    const app = await buildApp({ source, logger: silentLogger });
    try {
      expectUnavailable(await call(app, "GET", "/healthz"), []);
      await db.exec(catalogDdl("postgres"));
      const res = await waitForHealth(app, 200);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: "ok" });
    } finally {
      await app.close();
      await source.close();
      await dispose();
    }
  });
});

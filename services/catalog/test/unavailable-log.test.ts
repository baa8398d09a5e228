/**
 * An unavailable catalog is logged once per change of state: one warning with our reason and the
 * driver's message as a plain field (no stack) when it goes, one info line when it is back, and
 * nothing from the availability watch for the requests and refresh checks in between.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { readCatalogConfig } from "../src/config.js";
import { openPostgresSource, openSqliteSource } from "../src/db/source.js";
import { watchAvailability } from "../src/db/unavailable.js";
import { generateCatalog } from "../src/demo/generate.js";
import { loadDemoCatalog } from "../src/demo/postgres.js";
import { startCatalog } from "../src/server.js";
import { backends, call, createPostgresDatabase } from "./support/fixture.js";

const SIZE = { products: 20, stores: 2, regions: 1, snapshots: 100, seed: 3, endAt: new Date("2026-03-12T00:00:00Z") };

type Line = Record<string, unknown> & { level: number; msg: string };

/** A JSON-lines logger whose output stays in `lines`. */
function capture(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n")) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines };
}

/** The lines the availability watch writes. */
const availability = (lines: Line[]) => lines.filter((line) => /^catalog (un)?available/.test(line.msg));

/** Warnings and errors from anywhere else: requests, probes and refresh checks must add none. */
const others = (lines: Line[]) => lines.filter((line) => line.level >= 40 && !/^catalog (un)?available/.test(line.msg));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(app: FastifyInstance, path: string, status: number): Promise<void> {
  for (let i = 0; i < 100 && (await call(app, "GET", path)).status !== status; i++) await pause(50);
}

/** Requests and refresh checks while the state holds: none of them may add a line. */
async function hammer(app: FastifyInstance): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.all(["/healthz", "/products", "/sync/cursors"].map((path) => call(app, "GET", path)));
  await pause(350);
}

describe.each(backends)("availability log [%s]", (backend) => {
  const { logger, lines } = capture();
  let app: FastifyInstance;
  let makeAvailable: () => Promise<void>;
  let takeAway: () => Promise<void>;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (backend === "sqlite") {
      const dir = mkdtempSync(join(tmpdir(), "catalog-availability-"));
      const path = join(dir, "catalog.db");
      const source = watchAvailability(openSqliteSource(path), logger);
      app = await buildApp({ source, logger, refreshIntervalMs: 100 });
      makeAvailable = async () => void generateCatalog(path, SIZE);
      takeAway = async () => rmSync(path);
      cleanup = async () => {
        await app.close();
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      };
    } else {
      const pg = await createPostgresDatabase();
      const source = watchAvailability(openPostgresSource(pg.db), logger);
      app = await buildApp({ source, logger, refreshIntervalMs: 100 });
      makeAvailable = async () => void (await loadDemoCatalog(pg.db, SIZE, "refuse"));
      takeAway = () => pg.db.exec("DROP TABLE catalog_products");
      cleanup = async () => {
        await app.close();
        await pg.dispose();
      };
    }
  });

  afterAll(async () => cleanup?.());

  it("warns once when the catalog is unavailable, with the driver's message as a field and no stack", async () => {
    await hammer(app);
    const reason = backend === "sqlite" ? "database file not found" : "catalog tables are missing";
    expect(availability(lines)).toEqual([
      expect.objectContaining({ level: 40, msg: `catalog unavailable: ${reason}`, reason, cause: expect.any(String) }),
    ]);
    const [warning] = availability(lines);
    expect(warning?.cause).toMatch(backend === "sqlite" ? /ENOENT/ : /catalog_products/);
    // An empty database gets told how to fill it; a missing file is another matter.
    if (backend === "sqlite") expect(warning).not.toHaveProperty("hint");
    else expect(warning?.hint).toMatch(/npm run demo -w services\/catalog -- --out/);
    expect(JSON.stringify(warning)).not.toMatch(/stack|"err"/);
    expect(others(lines)).toEqual([]);
  });

  it("says once that it is back, then stays quiet", async () => {
    await makeAvailable();
    await until(app, "/products", 200);
    await hammer(app);
    expect(availability(lines).map((line) => [line.level, line.msg])).toEqual([
      [40, expect.stringMatching(/^catalog unavailable: /)],
      [30, "catalog available again"],
    ]);
  });

  it("warns again when it goes away again", async () => {
    await takeAway();
    await until(app, "/healthz", 503);
    await hammer(app);
    expect(availability(lines).map((line) => line.level)).toEqual([40, 30, 40]);
    expect(others(lines)).toEqual([]);
  });
});

describe("availability log through startCatalog", () => {
  it("comes from the running service", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catalog-availability-"));
    const { logger, lines } = capture();
    const config = readCatalogConfig({
      ENDPOINT_CATALOG_DB: `sqlite:///${join(dir, "catalog.db")}`,
      CATALOG_HOST: "127.0.0.1",
      CATALOG_PORT: "0",
      CATALOG_REFRESH_INTERVAL_MS: "100",
    });
    const service = await startCatalog(config, logger);
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${service.url}/healthz`)).status).toBe(503);
      generateCatalog(join(dir, "catalog.db"), SIZE);
      for (let i = 0; i < 100 && (await fetch(`${service.url}/products`)).status !== 200; i++) await pause(50);
      expect(availability(lines).map((line) => line.msg)).toEqual([
        "catalog unavailable: database file not found",
        "catalog available again",
      ]);
      expect(others(lines)).toEqual([]);
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

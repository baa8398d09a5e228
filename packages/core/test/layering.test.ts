/**
 * Proves the layering rules in biome.json bite. Biome's override globs are relative to the
 * configuration's directory, and `--stdin-file-path` prints no diagnostics (it fails even on
 * clean input), so the probes go into a throw-away tree outside the repository that mirrors
 * its layout and holds a verbatim copy of the repository's biome.json. Nothing is written
 * under services/, which other people are editing.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const biome = join(repo, "node_modules/@biomejs/biome/bin/biome");

const probes: Record<string, string> = {
  "services/catalog/src/domain/bad.ts": [
    'import "../http/routes.js";',
    'import "fastify";',
    'import "@fastify/swagger";',
    'import "pg";',
    'import "better-sqlite3";',
    'import "@electric-sql/pglite";',
  ].join("\n"),
  "services/catalog/src/db/bad.ts": ['import "../domain/products.js";', 'import "../http/routes.js";', 'import "fastify";'].join("\n"),
  "packages/core/src/bad.ts": 'import "@platform/catalog";',
  "services/auth/src/domain/bad.ts": [
    'import "../http/app.js";',
    'import "fastify";',
    'import "pg";',
    'import "ioredis";',
    'import "rate-limiter-flexible";',
  ].join("\n"),
  "services/auth/src/db/bad.ts": ['import "../domain/service.js";', 'import "fastify";'].join("\n"),
  "services/auth/src/domain/clean.ts":
    'import { hash } from "@node-rs/bcrypt";\nimport { sql } from "@platform/core";\nimport { SignJWT } from "jose";\nimport { findUserById } from "../db/users.js";\nexport const used = [hash, sql, SignJWT, findUserById];',
  "services/catalog/src/domain/clean.ts":
    'import { find } from "../db/products.js";\nimport { sql } from "@platform/core";\nexport const used = [find, sql];',
  "services/catalog/src/db/clean.ts": 'import pg from "pg";\nimport { sql } from "@platform/core";\nexport const used = [pg, sql];',
  "services/catalog/src/http/clean.ts":
    'import Fastify from "fastify";\nimport { find } from "../domain/products.js";\nexport const used = [Fastify, find];',
};

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string; start: { line: number } };
}

describe("layering rules in biome.json", () => {
  let dir: string;
  let diagnostics: Diagnostic[];
  let processed: number;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "layering-probe-"));
    const config = JSON.parse(readFileSync(join(repo, "biome.json"), "utf8"));
    delete config.$schema;
    writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
    for (const [path, text] of Object.entries(probes)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), `${text}\n`);
    }
    const run = spawnSync(process.execPath, [biome, "lint", "--reporter=json", ...Object.keys(probes)], { cwd: dir, encoding: "utf8" });
    const report = JSON.parse(run.stdout);
    diagnostics = report.diagnostics;
    processed = report.summary.changed + report.summary.unchanged;
    expect(run.status).toBe(1);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const found = (path: string) =>
    diagnostics
      .filter((d) => d.location.path === path)
      .map((d) => [d.location.start.line, d.category.replace("lint/style/", ""), d.message]);

  it("lints every probe path (files.includes covers the layout)", () => {
    expect(processed).toBe(Object.keys(probes).length);
  });

  it("stops domain/ from importing http/, Fastify or a database driver", () => {
    const inward = "domain/ must not import http/: imports point inward (http -> domain -> db -> core).";
    const driver = "only db/ talks to the database driver.";
    expect(found("services/catalog/src/domain/bad.ts")).toEqual([
      [1, "noRestrictedImports", inward],
      [2, "noRestrictedImports", "only http/ knows Fastify."],
      [3, "noRestrictedImports", inward],
      [4, "noRestrictedImports", driver],
      [5, "noRestrictedImports", driver],
      [6, "noRestrictedImports", driver],
    ]);
  });

  it("stops db/ from importing domain/, http/ or Fastify", () => {
    const inward = "db/ must not import http/ or domain/: imports point inward (http -> domain -> db -> core).";
    expect(found("services/catalog/src/db/bad.ts")).toEqual([
      [1, "noRestrictedImports", inward],
      [2, "noRestrictedImports", inward],
      [3, "noRestrictedImports", "only http/ knows Fastify."],
    ]);
  });

  it("holds the auth service to the same rules, and keeps Redis and rate limiting out of its domain", () => {
    const inward = "domain/ must not import http/: imports point inward (http -> domain -> db -> core).";
    expect(found("services/auth/src/domain/bad.ts")).toEqual([
      [1, "noRestrictedImports", inward],
      [2, "noRestrictedImports", "only http/ knows Fastify."],
      [3, "noRestrictedImports", "only db/ talks to the database driver."],
      [4, "noRestrictedImports", "only http/ talks to Redis (rate-limit counters)."],
      [5, "noRestrictedImports", "rate limiting is an http/ concern."],
    ]);
    const dbInward = "db/ must not import http/ or domain/: imports point inward (http -> domain -> db -> core).";
    expect(found("services/auth/src/db/bad.ts")).toEqual([
      [1, "noRestrictedImports", dbInward],
      [2, "noRestrictedImports", "only http/ knows Fastify."],
    ]);
  });

  it("stops core from depending on a service", () => {
    expect(found("packages/core/src/bad.ts")).toEqual([[1, "noRestrictedImports", "core must not depend on a service."]]);
  });

  it("accepts imports that point inward", () => {
    expect(diagnostics.filter((d) => d.location.path.endsWith("/clean.ts"))).toEqual([]);
  });
});

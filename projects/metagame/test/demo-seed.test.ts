/**
 * `npm run seed`, run as a user runs it (a child process): on a PGlite directory, or on a fresh
 * PostgreSQL database when TEST_DATABASE_URL is set. It migrates and loads an empty database,
 * refuses one with players, and answers a wrong command line or an unreachable server with one
 * clear line, never a stack trace.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, openScratchDatabase, type ScratchDatabase, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SEED = "projects/metagame/demo/seed.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function seed(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", SEED, ...args], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let target: string;
let scratch: ScratchDatabase | undefined;
let dir: string | undefined;

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    scratch = await openScratchDatabase(process.env.TEST_DATABASE_URL, "metagame_seed");
    target = scratch.url as string;
  } else {
    dir = mkdtempSync(join(tmpdir(), "metagame-seed-"));
    target = join(dir, "db");
  }
});
afterAll(async () => {
  await scratch?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The seeded database, opened after the child has closed it (a PGlite directory has one user at a time). */
async function counts(): Promise<{ players: number; migrations: number }> {
  const db = scratch ? scratch.db : await openDatabase({ dataDir: target });
  try {
    const [row] = (
      await db.query<{ players: number | string; migrations: number | string }>(
        sql`SELECT (SELECT count(*) FROM public.player) AS players, (SELECT count(*) FROM hdb_catalog.schema_migrations) AS migrations`,
      )
    ).rows;
    return { players: Number(row?.players), migrations: Number(row?.migrations) };
  } finally {
    if (!scratch) await db.close();
  }
}

describe("npm run seed", () => {
  it("migrates an empty database and loads the demo world into it", { timeout: 120_000 }, async () => {
    const run = await seed(target);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^seed: loaded the demo world in [\d.]+ s: 50 players, 4 more guilds, 48 quests, 150 completions\./);
    expect(await counts()).toEqual({ players: 50, migrations: 3 });
  });

  it("refuses a database that already has players, and changes nothing", { timeout: 60_000 }, async () => {
    const run = await seed(target);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe("seed: the database already has 50 players; the demo data loads only into a project without players.");
    expect(await counts()).toEqual({ players: 50, migrations: 3 });
  });

  it("explains a wrong command line (exit 2)", { timeout: 60_000 }, async () => {
    const runs = await Promise.all([seed(), seed(target, "--scale", "huge"), seed("mysql://root@localhost/db"), seed(target, "extra")]);
    expect(runs.map((r) => [r.code, r.stderr.split("\n")[0]])).toEqual([
      [2, "seed: name the database to seed"],
      [2, 'seed: --scale must be demo or bench, got "huge"'],
      [2, "seed: only postgres:// and postgresql:// URLs are databases here, got mysql://"],
      [2, "seed: unexpected argument extra"],
    ]);
    for (const run of runs) expect(run.stderr).toContain("usage: npm run seed -w projects/metagame --");
  });

  it("reports a server it cannot reach in one line, without a stack", async () => {
    const run = await seed("postgresql://postgres@127.0.0.1:1/nowhere");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^seed: .*ECONNREFUSED/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

/**
 * `npm run seed -w projects/metagame -- <postgres url | PGlite directory> [--scale demo|bench]`
 *
 * Applies the project's migrations when they are not applied yet (with the engine's own Hasura
 * migration runner: the engine is created once on the database, without listening, and closed),
 * then loads the demo world. Refuses, with exit code 1, a database that already has players.
 * Exit code 2 for a wrong command line. A PGlite directory must not be open in a running server
 * meanwhile (PGlite is one process's database): stop the server, seed, start it again.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createLogger, type Database, openDatabase, sql } from "@platform/core";
import { createGraphql, readGraphqlConfig } from "@platform/graphql";
import { MIGRATIONS_DIR } from "../backend/src/project.js";
import { loadDemoData, resolveScale } from "./load.js";

const USAGE = "usage: npm run seed -w projects/metagame -- <postgres://... | PGlite data directory> [--scale demo|bench]";
const SCALES = ["demo", "bench"] as const;

class UsageError extends Error {}

function readArgs(argv: string[]): { target: string; scale: (typeof SCALES)[number] } {
  let parsed: ReturnType<typeof parseArgs<{ options: { scale: { type: "string" } }; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: { scale: { type: "string" } }, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [target, ...extra] = parsed.positionals;
  if (!target) throw new UsageError("name the database to seed");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const scale = parsed.values.scale ?? "demo";
  if (!(SCALES as readonly string[]).includes(scale)) throw new UsageError(`--scale must be demo or bench, got "${scale}"`);
  return { target, scale: scale as (typeof SCALES)[number] };
}

/** The engine applies pending migrations when it is created; nothing else of it is used here. */
async function applyMigrations(db: Database): Promise<void> {
  const config = readGraphqlConfig({ HASURA_GRAPHQL_MIGRATIONS_DIR: MIGRATIONS_DIR, HASURA_GRAPHQL_ENABLE_CONSOLE: "false" });
  const engine = await createGraphql(config, createLogger({ level: "silent" }), { db });
  await engine.close();
}

async function seed(argv: string[]): Promise<number> {
  const { target, scale } = readArgs(argv);
  const isUrl = /^postgres(ql)?:\/\//i.test(target);
  if (!isUrl && target.includes("://"))
    throw new UsageError(`only postgres:// and postgresql:// URLs are databases here, got ${target.split("://")[0]}://`);
  const db = await openDatabase(isUrl ? { url: target, maxConnections: 2 } : { dataDir: resolve(target) });
  try {
    await applyMigrations(db);
    const started = performance.now();
    if (!(await loadDemoData(db, { scale }))) {
      const { rows } = await db.query<{ n: string }>(sql`SELECT count(*)::text AS n FROM public.player`);
      console.error(`seed: the database already has ${rows[0]?.n} players; the demo data loads only into a project without players.`);
      return 1;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const size = resolveScale(scale);
    console.log(
      `seed: loaded the ${scale} world in ${seconds} s: ${size.players} players, ${size.guilds} more guilds, ` +
        `${size.quests} quests, ${size.completions} completions. Player 1 is "nova" (00000000-0000-4000-8001-000000000001).`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

seed(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`seed: ${error.message}\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    // A database that cannot be reached or a failed migration: its message, without a stack.
    console.error(`seed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);

/**
 * `npm run bench:metagame -w bench`: MetaGame's player profile page (metagame-query.ts) through
 * our engine as role `player`, next to the same JSON built by one hand-written SQL statement
 * behind a bare node:http server (metagame-direct.ts), on 10,000 players / 50,000 quests /
 * 200,000 completions (the demo generator's bench scale) in a throw-away PostgreSQL database.
 * Two pages: by username (`_ilike`, as the web client asks) and by id (`player_by_pk`). The sides
 * alternate in rounds (direct, engine, engine, direct, ...) so other work on the machine falls on
 * both alike. Target: engine / direct >= 0.7x throughput. Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds of measured load per side and page, over all rounds (default 10)
 *   BENCH_ROUNDS       rounds per side (default 2)
 *   BENCH_CONNECTIONS  concurrent HTTP connections (default 32)
 *   BENCH_POOL         pg pool size of both servers (default: BENCH_CONNECTIONS)
 *   BENCH_PG_URL       the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
 *                      database bench_metagame is created there and dropped after
 *   BENCH_CPU_PROF     set to 1 to run the engine with --cpu-prof and print its hottest functions
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { openDatabase, sql } from "@platform/core";
import { BENCH_SCALE, demoId, demoPlayer, loadDemoData } from "@platform/metagame/demo";
import { positiveNumber } from "./common/env.js";
import type { Server } from "./common/processes.js";
import { runBench } from "./common/report.js";
import { dropDatabase, freshDatabase } from "./graphql/action-db.js";
import { topSelfTime } from "./graphql/profile.js";
import { addCpu, type CpuSpent, startCpu } from "./metagame-cpu.js";
import { combine, round, type Target, warm } from "./metagame-load.js";
import { benchPlayers, canonical, requestBody, type Scenario } from "./metagame-query.js";
import { printResults, type SideResult } from "./metagame-report.js";
import { ADMIN_SECRET, startDirect, startEngine } from "./metagame-servers.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = join(ROOT, "bench/results/metagame-profile.json");
const DATABASE = "bench_metagame";
const SCENARIOS: Scenario[] = ["username", "id"];

async function post(url: string, body: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

/**
 * Every body asked of both sides once: the engine must answer without errors, and both answers
 * must hold the same JSON (unordered lists compared sorted). Returns each side's answer lengths.
 */
async function sameAnswers(engine: Target, direct: Target): Promise<{ engine: number[]; direct: number[] }> {
  const lengths = { engine: [] as number[], direct: [] as number[] };
  for (const [i, body] of engine.bodies.entries()) {
    const [a, b] = [await post(engine.url, body, engine.headers), await post(direct.url, body, direct.headers)];
    const [ea, db] = [JSON.parse(a) as { data?: unknown; errors?: unknown }, JSON.parse(b) as { data?: unknown }];
    if (ea.errors || !ea.data) throw new Error(`the engine answered body ${i} with ${a.slice(0, 500)}`);
    if (!isDeepStrictEqual(canonical(ea.data), canonical(db.data)))
      throw new Error(`body ${i}: the answers differ\n engine: ${a.slice(0, 400)}\n direct: ${b.slice(0, 400)}`);
    lengths.engine.push(Buffer.byteLength(a));
    lengths.direct.push(Buffer.byteLength(b));
  }
  return lengths;
}

async function measure(
  scenario: Scenario,
  sides: Array<{ name: string; server: Server; target: Target }>,
  settings: { connections: number; rounds: number; seconds: number },
): Promise<SideResult[]> {
  const state = sides.map((s) => ({
    ...s,
    raw: [] as Awaited<ReturnType<typeof round>>[],
    cpu: null as CpuSpent | null,
    perRound: [] as number[],
  }));
  for (const s of state) await warm(s.target, settings.connections);
  for (let r = 0; r < settings.rounds; r++) {
    for (const s of r % 2 === 0 ? state : [...state].reverse()) {
      const meter = startCpu(s.server.pid);
      const raw = await round(s.target, settings.connections, settings.seconds / settings.rounds);
      s.cpu = addCpu(s.cpu, meter.stop());
      s.raw.push(raw);
      s.perRound.push(raw.totalCompletedRequests / raw.duration);
    }
  }
  return state.map((s) => ({
    scenario,
    name: s.name,
    load: combine(s.raw, settings.connections, s.target),
    perRound: s.perRound,
    cpu: s.cpu,
    bytes: s.target.lengths.reduce((a, b) => a + b, 0) / s.target.lengths.length,
    wrong: [...s.target.wrong],
  }));
}

async function main(): Promise<number> {
  const seconds = positiveNumber(process.env, "BENCH_DURATION", 10);
  const rounds = Math.round(positiveNumber(process.env, "BENCH_ROUNDS", 2));
  const connections = Math.round(positiveNumber(process.env, "BENCH_CONNECTIONS", 32));
  const pool = Math.round(positiveNumber(process.env, "BENCH_POOL", connections));
  const serverUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const profileDir = process.env.BENCH_CPU_PROF ? join(ROOT, "bench/.data/profiles-metagame") : undefined;
  if (profileDir) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const databaseUrl = await freshDatabase(serverUrl, DATABASE);
  const running: Server[] = [];
  const interrupt = () => void Promise.all(running.map((s) => s.stop())).finally(() => process.exit(130));
  process.once("SIGINT", interrupt);
  try {
    // The engine applies the project's migrations and metadata as it starts; then the data goes in.
    const engine = await startEngine(ROOT, databaseUrl, pool, profileDir);
    running.push(engine);
    const db = await openDatabase({ url: databaseUrl, maxConnections: 1 });
    const started = performance.now();
    try {
      if (!(await loadDemoData(db, { scale: "bench" }))) throw new Error(`${DATABASE} already had players`);
      const { rows } = await db.query<{ n: string }>(sql`SELECT pg_size_pretty(pg_database_size(current_database())) AS n`);
      console.log(`data: ${JSON.stringify(BENCH_SCALE)} loaded in ${((performance.now() - started) / 1000).toFixed(1)} s (${rows[0]?.n})`);
    } finally {
      await db.close();
    }
    const direct = await startDirect(ROOT, databaseUrl, pool);
    running.push(direct);
    const players = benchPlayers(BENCH_SCALE.players);
    // The engine as role player: the admin secret with x-hasura-role, as Hasura lets a trusted
    // caller act as a role; the webhook round trip of MetaGame's own sign-in is left out.
    const asPlayer = { "x-hasura-admin-secret": ADMIN_SECRET, "x-hasura-role": "player", "x-hasura-user-id": demoPlayer(1).id };
    const results: SideResult[] = [];
    console.log(`load: ${connections} connections, pools of ${pool}, ${seconds} s per side and page in ${rounds} rounds`);
    for (const scenario of SCENARIOS) {
      const bodies = players.map((n) => requestBody(scenario, n, demoId("player", n)));
      const engineTarget: Target = { url: `${engine.url}/v1/graphql`, headers: asPlayer, bodies, lengths: [], wrong: new Map() };
      const directTarget: Target = { url: `${direct.url}/${scenario}`, headers: {}, bodies, lengths: [], wrong: new Map() };
      const lengths = await sameAnswers(engineTarget, directTarget);
      engineTarget.lengths = lengths.engine;
      directTarget.lengths = lengths.direct;
      console.log(`  by ${scenario}: ${bodies.length} players' pages, the same JSON from both sides`);
      const sides = [
        { name: "direct SQL", server: direct, target: directTarget },
        { name: "engine", server: engine, target: engineTarget },
      ];
      results.push(...(await measure(scenario, sides, { connections, rounds, seconds })));
    }
    const pass = printResults(results, { connections, rounds, seconds, pool, resultsFile: RESULTS });
    return pass ? 0 : 1;
  } finally {
    process.off("SIGINT", interrupt);
    for (const server of running.reverse()) await server.stop();
    await dropDatabase(serverUrl, DATABASE);
    const hot = profileDir ? topSelfTime(profileDir, ROOT, 30) : null;
    if (hot) {
      console.log(`\nthe engine's top self time (${hot.file}):`);
      for (const h of hot.hotspots) console.log(`  ${h.percent.toFixed(1).padStart(5)}%  ${h.function}  ${h.location}`);
    }
  }
}

runBench(main);

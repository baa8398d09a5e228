/**
 * `npm run bench:graphql`: our GraphQL service next to PostGraphile v5 and to the raw SQL our
 * engine runs, on the same PostgreSQL and the same ~1,000,000-row database; plus the schema
 * build for 1,000 tracked tables. Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds of measured load per server (default 10)
 *   BENCH_CONNECTIONS  concurrent HTTP connections (and raw pg workers) (default 32)
 *   BENCH_POOL         pg pool size of all three servers (default: BENCH_CONNECTIONS)
 *   BENCH_PG_URL       the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_CPU_PROF     set to 1 to run our service with --cpu-prof and print its hottest functions
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "../catalog/load.js";
import { startCpuMeter } from "../common/cpu.js";
import { positiveNumber } from "../common/env.js";
import { MemorySampler, residentMemoryMb } from "../common/processes.js";
import { runBench } from "../common/report.js";
import { ensureDataset } from "./dataset.js";
import { loadEngine, type Metadata } from "./engine.js";
import { type GraphqlTarget, loadGraphql, warmGraphql } from "./load.js";
import {
  ADMIN_SECRET,
  ensureNode22,
  ensurePostgraphile,
  NODE22_PACKAGE,
  postJson,
  type Server,
  startOurs,
  startPostgraphile,
} from "./processes.js";
import { topSelfTime } from "./profile.js";
import { fingerprint, OURS_QUERY, POSTGRAPHILE_QUERY, trackingRequest, variableSets } from "./queries.js";
import { captureEngineSql, measureRawPg, openRawPool, runOnce } from "./raw-pg.js";
import { evaluate, type Measured, printReport, type Report, ratios, writeReport } from "./report.js";
import { measureSchemaBuild } from "./schema-build.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA = join(ROOT, "bench/.data");
const RESULTS = join(ROOT, "bench/results/graphql.json");

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    durationSeconds: number("BENCH_DURATION", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 32)),
    pool: Math.round(number("BENCH_POOL", number("BENCH_CONNECTIONS", 32))),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    cpuProfileDir: env.BENCH_CPU_PROF ? join(DATA, "profiles") : undefined,
  };
}

/** Runs one server's part; a failure is recorded in the report rather than ending the run. */
async function measure(slot: Measured, work: () => Promise<LoadResult>): Promise<void> {
  try {
    slot.result = await work();
    const r = slot.result;
    console.log(`  ${slot.name}: ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`);
  } catch (error) {
    slot.error = error instanceof Error ? error.message : String(error);
    console.log(`  ${slot.name}: not measured (${slot.error.split("\n")[0]})`);
  }
}

async function main(): Promise<number> {
  const { durationSeconds, connections, pool: poolSize, serverUrl, cpuProfileDir } = settings(process.env);
  const startedAt = new Date().toISOString();
  const running = new Set<Server>();
  const stopAll = async () => Promise.all([...running].map((s) => s.stop()));
  const interrupt = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  const started = async (server: Promise<Server>) => {
    const s = await server;
    running.add(s);
    return s;
  };

  const dataset = await ensureDataset(serverUrl);
  console.log(`database: ${dataset.url} ${JSON.stringify(dataset.rows)}`);
  const engine = await loadEngine();
  console.log("\nschema build for 1,000 tables");
  const schemaBuild = await measureSchemaBuild(ROOT, serverUrl, engine, residentMemoryMb).catch((error: unknown) => {
    console.log(`  not measured: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });

  const variables = variableSets();
  const load: Report["load"] = {
    ours: { name: "ours", result: null, cpu: null, error: null },
    postgraphile: { name: "PostGraphile v5", result: null, cpu: null, error: null },
    raw: { name: "raw pg (engine's SQL)", result: null, cpu: null, error: null },
  };
  const equivalence: Report["equivalence"] = { postgraphile: null, raw: null };
  const memory: Report["memory"] = { idleMb: null, afterWarmupMb: null, maxMb: null };
  let expected: string[] = [];
  let metadata: Metadata | undefined;
  let node22: string | null = null;
  console.log(`\nload: ${connections} connections, pg pools of ${poolSize}, ${durationSeconds} s per server`);

  await measure(load.ours, async () => {
    if (cpuProfileDir) {
      rmSync(cpuProfileDir, { recursive: true, force: true });
      mkdirSync(cpuProfileDir, { recursive: true });
    }
    const ours = await started(startOurs(ROOT, dataset.url, poolSize, cpuProfileDir));
    try {
      const headers = { "x-hasura-admin-secret": ADMIN_SECRET };
      await postJson(`${ours.url}/v1/metadata`, trackingRequest(), headers);
      metadata = (await postJson(`${ours.url}/v1/metadata`, { type: "export_metadata", args: {} }, headers)) as Metadata;
      memory.idleMb = residentMemoryMb(ours.pid);
      const bodies = variables.map((v) => ({ query: OURS_QUERY, variables: v }));
      for (const body of bodies) expected.push(fingerprint(await postJson(`${ours.url}/v1/graphql`, body, headers)));
      if (expected.some((f) => !f.startsWith("[["))) throw new Error(`unexpected answer: ${expected.find((f) => !f.startsWith("[["))}`);
      const target: GraphqlTarget = { url: `${ours.url}/v1/graphql`, headers, bodies: bodies.map((b) => JSON.stringify(b)) };
      await warmGraphql(target, connections);
      const sampler = new MemorySampler(ours.pid);
      memory.afterWarmupMb = sampler.sample();
      sampler.start();
      const meter = startCpuMeter(ours.pid);
      const result = await loadGraphql(target, connections, durationSeconds);
      load.ours.cpu = meter.perRequest(result.requests);
      sampler.sample();
      sampler.stop();
      memory.maxMb = sampler.max;
      return result;
    } finally {
      await ours.stop();
      running.delete(ours);
    }
  });
  if (load.ours.error) expected = [];

  await measure(load.postgraphile, async () => {
    node22 = ensureNode22(DATA);
    const script = ensurePostgraphile(join(ROOT, "bench/graphql/postgraphile"));
    const server = await started(startPostgraphile(node22, script, dataset.url, poolSize));
    try {
      const bodies = variables.map((v) => ({ query: POSTGRAPHILE_QUERY, variables: v }));
      const answers = [];
      for (const body of bodies) answers.push(fingerprint(await postJson(`${server.url}/graphql`, body)));
      equivalence.postgraphile = expected.length > 0 && answers.every((a, i) => a === expected[i]);
      if (!equivalence.postgraphile) console.log(`  PostGraphile answers differ, e.g. ${answers[0]?.slice(0, 200)}`);
      const target: GraphqlTarget = { url: `${server.url}/graphql`, headers: {}, bodies: bodies.map((b) => JSON.stringify(b)) };
      await warmGraphql(target, connections);
      const meter = startCpuMeter(server.pid);
      const result = await loadGraphql(target, connections, durationSeconds);
      load.postgraphile.cpu = meter.perRequest(result.requests);
      return result;
    } finally {
      await server.stop();
      running.delete(server);
    }
  });

  await measure(load.raw, async () => {
    if (!metadata) throw new Error("our service did not give its metadata, so its SQL could not be compiled");
    const captured = await captureEngineSql(engine, dataset.url, metadata, OURS_QUERY, variables);
    const texts = new Set(captured.map((c) => c.text));
    console.log(`  captured ${captured.length} statements (${texts.size} distinct text, ${captured[0]?.text.length} chars)`);
    const pool = openRawPool(dataset.url);
    try {
      const answers = [];
      for (const c of captured) answers.push(fingerprint(JSON.parse(`{"data":{"author":${await runOnce(pool, c)}}}`)));
      equivalence.raw =
        expected.length > 0 && answers.every((a, i) => a === expected[i] && fingerprint(JSON.parse(captured[i]?.response ?? "{}")) === a);
    } finally {
      await pool.end();
    }
    const { result, cpu } = await measureRawPg(dataset.url, captured, { connections, pool: poolSize, seconds: durationSeconds });
    load.raw.cpu = cpu;
    return result;
  });

  await stopAll();
  process.off("SIGINT", interrupt);
  process.off("SIGTERM", interrupt);
  const partial = {
    startedAt,
    settings: { durationSeconds, connections, pool: poolSize, node22: node22 ? NODE22_PACKAGE : null },
    dataset,
    equivalence,
    load,
    ratios: ratios(load),
    memory,
    schemaBuild,
  };
  const targets = evaluate(partial);
  const report: Report = { ...partial, targets, pass: targets.every((t) => t.pass) };
  console.log("");
  printReport(report);
  writeReport(RESULTS, report);
  console.log(`\nresults written to ${RESULTS}`);
  const profile = cpuProfileDir ? topSelfTime(cpuProfileDir, ROOT) : null;
  if (profile) {
    console.log(`\nour service's top self time (${profile.file}):`);
    for (const h of profile.hotspots) console.log(`  ${String(h.percent).padStart(5)}%  ${h.function}  ${h.location}`);
  }
  return report.pass ? 0 : 1;
}

runBench(main);

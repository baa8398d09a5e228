/**
 * `npm run bench`: the catalog service under load next to the raw SQL the original implementation
 * runs for the same routes. Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds per measured route, service and raw SQL alike (default 10)
 *   BENCH_CONNECTIONS  concurrent HTTP connections (default 20)
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SQLITE_CACHE_MB } from "@platform/catalog";
import BetterSqlite3 from "better-sqlite3";
import { runBench } from "../common/report.js";
import { ensureDataset, type Samples, sampleDataset } from "./dataset.js";
import { loadRoute, warmRoute } from "./load.js";
import { commonCountWork, dynamicsWork, measureRaw, productsCountWork, productsPageWork, type RawWork } from "./raw-sql.js";
import { evaluate, printReport, type Report, type RouteReport, writeReport } from "./report.js";
import { MemorySampler, type RunningService, startService } from "./service.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/catalog.json");
const RSS_LIMIT_MB = 500;
const READY_TIMEOUT_MS = 120_000;
const DYNAMICS_LISTINGS = 200;

interface Route {
  name: string;
  targetP50Ms: number;
  paths: string[];
  raw: (db: BetterSqlite3.Database) => RawWork;
}

function settings(env: NodeJS.ProcessEnv): { durationSeconds: number; connections: number } {
  const read = (name: string, fallback: number) => {
    const text = env[name]?.trim();
    const value = text ? Number(text) : fallback;
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${text}`);
    return value;
  };
  return { durationSeconds: read("BENCH_DURATION", 10), connections: Math.round(read("BENCH_CONNECTIONS", 20)) };
}

function routes(samples: Samples): Route[] {
  const dynamicsPaths = samples.triples.map((t) => {
    const query = new URLSearchParams({
      parser_name: t.parserName,
      source_id: t.sourceId,
      field: "price",
      date_from: samples.dateFrom.toISOString(),
      date_to: samples.dateTo.toISOString(),
      interval: "1d",
    });
    return `/products/${encodeURIComponent(t.canonicalProductId)}/dynamics?${query}`;
  });
  return [
    { name: "/products", targetP50Ms: 20, paths: ["/products"], raw: productsPageWork },
    { name: "/products/count", targetP50Ms: 20, paths: ["/products/count"], raw: productsCountWork },
    { name: "/products/common/count", targetP50Ms: 20, paths: ["/products/common/count?scope=stores"], raw: commonCountWork },
    { name: "/products/{id}/dynamics", targetP50Ms: 10, paths: dynamicsPaths, raw: (db) => dynamicsWork(db, samples) },
  ];
}

async function main(): Promise<number> {
  const { durationSeconds, connections } = settings(process.env);
  const startedAt = new Date().toISOString();
  const dataset = ensureDataset(join(ROOT, "bench/.data"));
  console.log(`catalog: ${dataset.path} (${(dataset.bytes / 2 ** 30).toFixed(2)} GiB)`);
  const samples = sampleDataset(dataset.path, DYNAMICS_LISTINGS);
  const plan = routes(samples);
  const reports: RouteReport[] = plan.map((route) => ({
    route: route.name,
    example: route.paths[0] ?? "",
    targetP50Ms: route.targetP50Ms,
    service: null,
    raw: null,
  }));

  console.log(`\nraw SQL on one better-sqlite3 connection, ${durationSeconds} s per route`);
  const db = new BetterSqlite3(dataset.path, { readonly: true, fileMustExist: true });
  // The same page cache the service gives its connection, so the ratio compares like with like.
  db.pragma(`cache_size = ${-1024 * DEFAULT_SQLITE_CACHE_MB}`);
  try {
    plan.forEach((route, i) => {
      const work = route.raw(db);
      work(); // first touch of the pages: not measured
      const result = measureRaw(work, durationSeconds);
      const report = reports[i];
      if (report) report.raw = result;
      console.log(`  ${route.name}: ${result.opsPerSecond.toFixed(2)} ops/s (${result.meanMs.toFixed(2)} ms each)`);
    });
  } finally {
    db.close();
  }

  const memory: Report["memory"] = { afterWarmupMb: null, endMb: null, maxMb: null, limitMb: RSS_LIMIT_MB };
  let serviceError: string | null = null;
  let service: RunningService | undefined;
  const interrupt = async () => {
    await service?.stop();
    process.exit(130);
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    console.log(`\nstarting the catalog service (up to ${READY_TIMEOUT_MS / 1000} s for start-up)`);
    const started = performance.now();
    service = await startService({ root: ROOT, databasePath: dataset.path, readyTimeoutMs: READY_TIMEOUT_MS });
    console.log(`  healthy after ${((performance.now() - started) / 1000).toFixed(1)} s, pid ${service.pid}`);
    const sampler = new MemorySampler(service.pid);
    for (const route of plan) await warmRoute(service.url, route.paths, { connections });
    memory.afterWarmupMb = sampler.sample();
    sampler.start();
    console.log(`  ${connections} connections, ${durationSeconds} s per route`);
    for (const [i, route] of plan.entries()) {
      const result = await loadRoute(service.url, route.paths, { connections, seconds: durationSeconds });
      const report = reports[i];
      if (report) report.service = result;
      console.log(`  ${route.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
    }
    memory.endMb = sampler.sample();
    sampler.stop();
    memory.maxMb = sampler.max;
  } catch (error) {
    serviceError = error instanceof Error ? error.message : String(error);
  } finally {
    await service?.stop();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }

  const targets = evaluate(reports, memory);
  const report: Report = {
    startedAt,
    settings: { durationSeconds, connections },
    dataset,
    routes: reports,
    memory,
    targets,
    serviceError,
    pass: serviceError === null && targets.every((t) => t.pass),
  };
  console.log("");
  printReport(report);
  writeReport(RESULTS, report);
  console.log(`\nresults written to ${RESULTS}`);
  return report.pass ? 0 : 1;
}

runBench(main);

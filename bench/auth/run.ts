/**
 * `npm run bench:auth`: the auth service (services/auth) as a real process on a throw-away
 * database `bench_auth` (created and dropped here) on the bench's PostgreSQL server.
 *
 * 1. POST /token?grant_type=refresh_token at BENCH_CONNECTIONS connections, each walking its own
 *    session's refresh-token chain, beside the same database work done directly with `pg`.
 * 2. GET /health latency while BENCH_SIGNINS password sign-ins (bcrypt cost 10) run concurrently.
 *
 *   BENCH_DURATION     seconds of each measured phase (default 10)
 *   BENCH_CONNECTIONS  HTTP connections for the refresh load, raw pg workers, service pool (default 32)
 *   BENCH_SIGNINS      concurrent password sign-ins during the /health probe (default 50)
 *   BENCH_PG_URL       the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_JWT_ALGORITHM the service's AUTH_JWT_ALGORITHM (default RS256, the service's default)
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "../catalog/load.js";
import { positiveNumber } from "../common/env.js";
import { MemorySampler, residentMemoryMb, type Server } from "../common/processes.js";
import { attempt, fixed, printTable, printTargets, runBench, writeJson } from "../common/report.js";
import { measureRawRefresh } from "./raw-pg.js";
import { loadRefresh, type RefreshLoad, warmRefresh } from "./refresh-load.js";
import { createDatabase, DATABASE, dropDatabase, inParallel, jwtAlgorithm, signIn, signUp, startAuthService } from "./service.js";
import { measureSignInHealth, type SignInLoad } from "./signin-health.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/auth.json");

const TARGETS = { refreshRatio: 0.6, healthP99Ms: 10 };

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    durationSeconds: number("BENCH_DURATION", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 32)),
    signIns: Math.round(number("BENCH_SIGNINS", 50)),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    algorithm: jwtAlgorithm(env),
  };
}

function loadRow(name: string, r: LoadResult | null, extra = "-"): string[] {
  if (!r) return [name, "-", "-", "-", "-", "not measured"];
  return [name, fixed(r.requestsPerSecond), fixed(r.p50Ms, 2), fixed(r.p99Ms, 2), String(r.requests), extra];
}

async function main(): Promise<number> {
  const { durationSeconds, connections, signIns, serverUrl, algorithm } = settings(process.env);
  const startedAt = new Date().toISOString();
  const errors: Record<string, string> = {};
  let service: Server | null = null;
  const interrupt = () =>
    void (async () => {
      await service?.stop();
      await dropDatabase(serverUrl).catch(() => {});
    })().finally(() => process.exit(130));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  const url = await createDatabase(serverUrl);
  console.log(`database: ${url} (created; dropped at the end)`);
  let refresh: RefreshLoad | null = null;
  let raw: LoadResult | null = null;
  let signInLoad: SignInLoad | null = null;
  const memory = { idleMb: null as number | null, maxMb: null as number | null };
  try {
    const users = Math.max(connections, signIns);
    const running = await startAuthService(ROOT, url, connections, algorithm);
    service = running;
    memory.idleMb = residentMemoryMb(running.pid);
    const t = performance.now();
    const chains = (await inParallel(users, 8, (i) => signUp(running.url, i))).slice(0, connections);
    const rawSessions = await inParallel(connections, 8, (i) => signIn(running.url, i));
    console.log(
      `prepared: ${users} users signed up, ${connections} + ${connections} sessions (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );

    console.log(
      `\nrefresh: ${connections} connections, ${durationSeconds} s, each connection on its own token chain, ${algorithm} access tokens`,
    );
    refresh = await attempt("refresh", errors, async () => {
      const tokens = chains.map((s) => s.refreshToken);
      const warmBroken = await warmRefresh(running.url, tokens, connections);
      if (warmBroken > 0) throw new Error(`${warmBroken} warm-up refreshes gave no new token`);
      const sampler = new MemorySampler(running.pid);
      sampler.start();
      const result = await loadRefresh(running.url, tokens, connections, durationSeconds);
      sampler.stop();
      sampler.sample();
      memory.maxMb = sampler.max;
      console.log(`  service: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
      return result;
    });

    console.log(`\nsign-in: ${signIns} concurrent password sign-ins for ${durationSeconds} s, GET /health probed meanwhile`);
    signInLoad = await attempt("sign-in", errors, async () => {
      const result = await measureSignInHealth(running.url, users, signIns, durationSeconds);
      console.log(`  ${result.signInsPerSecond} sign-ins/s; /health p99 ${result.health.p99Ms} ms (idle ${result.idleHealth.p99Ms} ms)`);
      return result;
    });
    const rss = residentMemoryMb(running.pid);
    if (rss !== null && rss > (memory.maxMb ?? 0)) memory.maxMb = rss;
    await running.stop();
    service = null;

    console.log(`\nraw pg: ${connections} workers, the service's refresh statement run directly, ${durationSeconds} s`);
    raw = await attempt("raw pg", errors, async () => {
      const result = await measureRawRefresh(url, rawSessions, durationSeconds, algorithm);
      console.log(`  raw pg: ${result.requestsPerSecond.toFixed(0)} tx/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
      return result;
    });
  } finally {
    await service?.stop();
    await dropDatabase(serverUrl);
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }

  const ratio = refresh && raw ? refresh.requestsPerSecond / raw.requestsPerSecond : null;
  const refreshFailures = refresh ? refresh.non2xx + refresh.errors + refresh.broken : null;
  const targets = [
    {
      name: "refresh / raw pg throughput",
      limit: `>= ${TARGETS.refreshRatio}x`,
      value: ratio === null ? "not measured" : `${ratio.toFixed(2)}x`,
      pass: ratio !== null && ratio >= TARGETS.refreshRatio,
    },
    {
      name: "refreshes answered 200 + new token",
      limit: "all",
      value: refreshFailures === null ? "not measured" : `${refreshFailures} failed`,
      pass: refreshFailures === 0,
    },
    {
      name: `GET /health p99 during ${signIns} sign-ins`,
      limit: `< ${TARGETS.healthP99Ms} ms`,
      value: signInLoad ? `${signInLoad.health.p99Ms} ms` : "not measured",
      pass: signInLoad !== null && signInLoad.health.failed === 0 && signInLoad.health.p99Ms < TARGETS.healthP99Ms,
    },
    {
      name: "password sign-ins answered 200",
      limit: "all",
      value: signInLoad ? `${signInLoad.failed} failed of ${signInLoad.signIns + signInLoad.failed}` : "not measured",
      pass: signInLoad !== null && signInLoad.failed === 0 && signInLoad.signIns > 0,
    },
  ];
  const pass = targets.every((target) => target.pass);

  console.log("");
  printTable(
    ["refresh_token grant", "req/s", "p50 ms", "p99 ms", "requests", "failed"],
    [
      loadRow(`service (HTTP, ${connections} conns)`, refresh, refresh ? String(refreshFailures) : "-"),
      loadRow(`raw pg (${connections} workers)`, raw, raw ? String(raw.errors) : "-"),
    ],
  );
  console.log(`ratio service / raw pg: ${ratio === null ? "-" : `${ratio.toFixed(2)}x`}`);
  console.log("");
  const probeRow = (name: string, p: SignInLoad["health"] | undefined) =>
    p ? [name, String(p.probes), fixed(p.p50Ms, 2), fixed(p.p99Ms, 2), fixed(p.maxMs, 2)] : [name, "-", "-", "-", "-"];
  printTable(
    ["GET /health", "probes", "p50 ms", "p99 ms", "max ms"],
    [probeRow("idle", signInLoad?.idleHealth), probeRow(`during ${signIns} sign-ins`, signInLoad?.health)],
  );
  if (signInLoad)
    console.log(
      `password sign-ins: ${signInLoad.signIns} in ${durationSeconds} s (${signInLoad.signInsPerSecond}/s), p50 ${fixed(signInLoad.signInP50Ms)} ms, p99 ${fixed(signInLoad.signInP99Ms)} ms`,
    );
  console.log(`service RSS: idle ${fixed(memory.idleMb)} MB, max ${fixed(memory.maxMb)} MB`);
  printTargets(targets, pass);

  writeJson(RESULTS, {
    startedAt,
    settings: { durationSeconds, connections, signIns, database: DATABASE, bcryptCost: 10, jwtAlgorithm: algorithm },
    refresh: { service: refresh, rawPg: raw, ratio },
    signIn: signInLoad,
    memory,
    errors,
    targets,
    pass,
  });
  console.log(`\nresults written to ${RESULTS}`);
  return pass ? 0 : 1;
}

runBench(main);

/**
 * `npm run bench:graphql-action -w bench`: a synchronous action whose handler answers at once,
 * called through our service, next to the same handler called directly with the payload our
 * service sends it (captured from a real call, so the same bytes). Target: the action through
 * the service at least 0.8x of the direct calls' throughput. The handler (action-handler.ts) and
 * our service are separate processes; autocannon runs in this one. The two sides alternate in
 * rounds (direct, service, service, direct, ...), so a machine shared with other work disturbs
 * both alike. Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds of measured load per side, over all rounds (default 10)
 *   BENCH_ROUNDS       rounds per side (default 2)
 *   BENCH_CONNECTIONS  concurrent HTTP connections (default 32)
 *   BENCH_ACTION_TYPE  mutation (Hasura's default action type) or query (default mutation)
 *   BENCH_PG_URL       the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
 *                      a throw-away database bench_action is created on it and dropped after
 *   BENCH_CPU_PROF     set to 1 to run our service with --cpu-prof and print its hottest functions
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "../catalog/load.js";
import { positiveNumber } from "../common/env.js";
import { freePort, type Server, startServer } from "../common/processes.js";
import { printTable, printTargets, writeJson } from "../common/report.js";
import { addCpu, type CpuSpent, startCpu } from "./action-cpu.js";
import { dropDatabase, freshDatabase } from "./action-db.js";
import { combine, type Failures, failures, round, type Target, warm } from "./action-load.js";
import { ADMIN_SECRET, postJson, startOurs } from "./processes.js";
import { topSelfTime } from "./profile.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/graphql-action.json");
const DATABASE = "bench_action";
const TARGET = 0.8;
/** What action-handler.ts answers, and what our service answers the action's caller. */
const HANDLER_OUTPUT = '{"sum":3}';
const ANSWER = '{"data":{"addNumbers":{"sum":3}}}';

async function startHandler(): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: "handler",
    command: process.execPath,
    args: ["--import", "tsx", "bench/graphql/action-handler.ts", String(port)],
    cwd: ROOT,
    env: { NODE_ENV: "production" },
    port,
    ready: async (url) => (await fetch(`${url}/count`, { signal: AbortSignal.timeout(2000) })).status === 200,
  });
}

/** POSTs the handler has answered and TCP connections it has accepted so far. */
const handlerCounts = async (handler: Server) =>
  (await (await fetch(`${handler.url}/count`)).json()) as { requests: number; connections: number };

/** Hasura's metadata API: the output type and the action, its handler a literal URL. */
function metadata(handlerUrl: string, type: "mutation" | "query") {
  return {
    type: "bulk",
    args: [
      { type: "clear_metadata", args: {} },
      { type: "set_custom_types", args: { objects: [{ name: "Sum", fields: [{ name: "sum", type: "Int!" }] }] } },
      {
        type: "create_action",
        args: {
          name: "addNumbers",
          definition: {
            kind: "synchronous",
            type,
            arguments: [
              { name: "a", type: "Int!" },
              { name: "b", type: "Int!" },
            ],
            output_type: "Sum",
            handler: `${handlerUrl}/add`,
          },
        },
      },
    ],
  };
}

interface Side {
  name: string;
  target: Target;
  rounds: unknown[];
  cpu: CpuSpent | null;
  /** Requests per second of each round, to show how steady the machine was. */
  perRound: number[];
  /** Connections to the handler that carried calls, opened during this side's rounds. */
  connections: number;
}

/** One round of one side, with the CPU every process spent meanwhile. */
async function measureRound(side: Side, connections: number, seconds: number, ours: Server, handler: Server): Promise<void> {
  const opened = (await handlerCounts(handler)).connections;
  const meter = startCpu(ours.pid, handler.pid);
  const raw = (await round(side.target, connections, seconds)) as { totalCompletedRequests: number; duration: number };
  const spent = meter.stop();
  side.connections += (await handlerCounts(handler)).connections - opened;
  side.rounds.push(raw);
  side.cpu = side.rounds.length === 1 ? spent : addCpu(side.cpu, spent);
  side.perRound.push(raw.totalCompletedRequests / raw.duration);
}

/**
 * A side's CPU per request in ms: our service, the handler, autocannon (this process), the
 * kernel's softirq time, and the rest: everything else running on the machine meanwhile (other
 * work on a shared machine; a large rest means a disturbed run).
 */
function perRequest(cpu: CpuSpent | null, requests: number) {
  if (!cpu) return null;
  const n = Math.max(1, requests);
  const rest = Math.max(0, cpu.machine - cpu.service - cpu.handler - cpu.bench - cpu.softirq);
  return {
    service: cpu.service / n,
    handler: cpu.handler / n,
    autocannon: cpu.bench / n,
    softirq: cpu.softirq / n,
    rest: rest / n,
    machine: cpu.machine / n,
  };
}

const ms = (v: number | undefined) => (v === undefined ? "n/a" : v.toFixed(3));

async function main(): Promise<void> {
  const durationSeconds = positiveNumber(process.env, "BENCH_DURATION", 10);
  const roundCount = Math.round(positiveNumber(process.env, "BENCH_ROUNDS", 2));
  const connections = Math.round(positiveNumber(process.env, "BENCH_CONNECTIONS", 32));
  const actionType = process.env.BENCH_ACTION_TYPE === "query" ? "query" : "mutation";
  const serverUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const profileDir = process.env.BENCH_CPU_PROF ? join(ROOT, "bench/.data/profiles-action") : undefined;
  if (profileDir) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const databaseUrl = await freshDatabase(serverUrl, DATABASE);
  const handler = await startHandler();
  let ours: Server | undefined;
  try {
    ours = await startOurs(ROOT, databaseUrl, 2, profileDir);
    const headers = { "x-hasura-admin-secret": ADMIN_SECRET };
    const setup = await postJson(`${ours.url}/v1/metadata`, metadata(handler.url, actionType), headers);
    console.log("metadata:", JSON.stringify(setup).slice(0, 200));

    // One real call: its answer, the handler calls it makes, and the exact bytes it sent.
    const request = {
      query: `${actionType} AddNumbers($a: Int!, $b: Int!) { addNumbers(a: $a, b: $b) { sum } }`,
      variables: { a: 1, b: 2 },
    };
    const before = await handlerCounts(handler);
    const answer = await postJson(`${ours.url}/v1/graphql`, request, headers);
    const callsPerRequest = (await handlerCounts(handler)).requests - before.requests;
    const answered = JSON.stringify(answer) === ANSWER;
    const payload = await (await fetch(`${handler.url}/last`)).text();
    console.log(`answer: ${JSON.stringify(answer)}; handler calls per request: ${callsPerRequest}`);
    console.log(`payload the service sends (replayed directly): ${payload}`);

    const direct: Side = {
      name: "direct to the handler",
      target: { url: `${handler.url}/add`, headers: {}, body: payload, expect: HANDLER_OUTPUT, wrong: new Map() },
      rounds: [],
      cpu: null,
      perRound: [],
      connections: 0,
    };
    const engine: Side = {
      name: `${actionType} through our service`,
      target: { url: `${ours.url}/v1/graphql`, headers, body: JSON.stringify(request), expect: ANSWER, wrong: new Map() },
      rounds: [],
      cpu: null,
      perRound: [],
      connections: 0,
    };
    await warm(direct.target, connections);
    await warm(engine.target, connections);
    const seconds = durationSeconds / roundCount;
    for (let r = 0; r < roundCount; r++) {
      for (const side of r % 2 === 0 ? [direct, engine] : [engine, direct]) await measureRound(side, connections, seconds, ours, handler);
    }

    const failed = new Map([direct, engine].map((s) => [s, failures(s.rounds, s.target)]));
    const loads = new Map<Side, LoadResult>([direct, engine].map((s) => [s, combine(s.rounds, connections, failed.get(s) as Failures)]));
    const cpus = new Map([direct, engine].map((s) => [s, perRequest(s.cpu, loads.get(s)?.requests ?? 0)]));
    const directLoad = loads.get(direct) as LoadResult;
    const engineLoad = loads.get(engine) as LoadResult;
    const ratio = engineLoad.requestsPerSecond / directLoad.requestsPerSecond;

    console.log(
      `\nsync action, ${connections} connections, ${durationSeconds} s per side in ${roundCount} alternating rounds; CPU in ms per request (/proc):`,
    );
    printTable(
      ["", "req/s", "rounds' req/s", "p50 ms", "p99 ms", "errors", "service", "handler", "autocannon", "softirq", "rest", "machine"],
      [direct, engine].map((s) => {
        const load = loads.get(s) as LoadResult;
        const cpu = cpus.get(s);
        return [
          s.name,
          load.requestsPerSecond.toFixed(0),
          s.perRound.map((v) => v.toFixed(0)).join(" "),
          String(load.p50Ms),
          String(load.p99Ms),
          String(load.errors + load.non2xx),
          ms(cpu?.service),
          ms(cpu?.handler),
          ms(cpu?.autocannon),
          ms(cpu?.softirq),
          ms(cpu?.rest),
          ms(cpu?.machine),
        ];
      }),
    );
    console.log("rest: anything else running meanwhile (other work on the machine); machine: all busy CPU, per request.");
    // Our service keeps its connections to the handler open (http-post.ts): about one per concurrent call, not one per call.
    const serviceConnections = engine.connections;
    console.log(`connections our service opened to the handler during its rounds: ${serviceConnections} for ${engineLoad.requests} calls`);
    const serviceMs = cpus.get(engine)?.service;
    if (serviceMs) {
      // What bounds the ratio: our service is one single-threaded process doing a handler's HTTP work twice over and more.
      console.log(
        `our service: ${serviceMs.toFixed(3)} ms of CPU per action request, so one core caps it at ${(1000 / serviceMs).toFixed(0)} req/s; ` +
          `the handler: ${ms(cpus.get(direct)?.handler)} ms per call.`,
      );
    }
    for (const [side, f] of failed) {
      if (f.errors + f.timeouts + f.wrongAnswers + f.non2xx > 0)
        console.log(`${side.name}: ${f.errors} errors, ${f.timeouts} timeouts, ${f.wrongAnswers} wrong answers, ${f.non2xx} non-2xx`);
      for (const [answer, count] of side.target.wrong) console.log(`  ${count} x ${answer}`);
    }
    const clean = directLoad.errors + directLoad.non2xx + engineLoad.errors + engineLoad.non2xx === 0;
    const targets = [
      {
        name: "handler calls per action request",
        limit: "1",
        value: String(callsPerRequest),
        pass: callsPerRequest === 1 && answered,
      },
      {
        name: `throughput, action through our service / direct (${connections} connections)`,
        limit: `>= ${TARGET}x`,
        value: `${ratio.toFixed(2)}x`,
        pass: ratio >= TARGET,
      },
    ];
    const pass = targets.every((t) => t.pass) && clean;
    printTargets(targets, pass);
    writeJson(RESULTS, {
      actionType,
      connections,
      durationSeconds,
      rounds: roundCount,
      callsPerRequest,
      serviceConnections,
      payload,
      direct: {
        load: directLoad,
        failures: failed.get(direct),
        wrong: [...direct.target.wrong],
        perRound: direct.perRound,
        cpuPerRequest: cpus.get(direct),
      },
      engine: {
        load: engineLoad,
        failures: failed.get(engine),
        wrong: [...engine.target.wrong],
        perRound: engine.perRound,
        cpuPerRequest: cpus.get(engine),
      },
      ratio,
      pass,
    });
    process.exitCode = pass ? 0 : 1;
  } finally {
    await ours?.stop();
    await handler.stop();
    await dropDatabase(serverUrl, DATABASE);
  }
  const hot = profileDir ? topSelfTime(profileDir, ROOT, 30) : null;
  if (hot) for (const h of hot.hotspots) console.log(`  ${h.percent.toFixed(1)}%  ${h.function}  ${h.location}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

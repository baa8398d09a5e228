/**
 * `npm run bench:graphql-action -w bench`: a synchronous action whose handler answers at once,
 * called through our service, next to the same handler called directly with the payload our
 * service sends it (captured from a real call, so the same bytes). Target: the action through
 * the service at least 0.8x of the direct calls' throughput. The handler (action-handler.ts) and
 * our service are separate processes; autocannon runs in this one. Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds of measured load per side (default 10)
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
import { startMachineMeter } from "./action-cpu.js";
import { dropDatabase, freshDatabase } from "./action-db.js";
import { type CpuPerRequest, startCpuMeter } from "./cpu.js";
import { type GraphqlTarget, loadGraphql, warmGraphql } from "./load.js";
import { ADMIN_SECRET, postJson, startOurs } from "./processes.js";
import { topSelfTime } from "./profile.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/graphql-action.json");
const DATABASE = "bench_action";
const TARGET = 0.8;

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
  load: LoadResult;
  engine: CpuPerRequest;
  handler: CpuPerRequest;
  machine: ReturnType<ReturnType<typeof startMachineMeter>["perRequest"]>;
}

/** Warm-up, then the measured run with both servers' CPU read from /proc around it. */
async function measure(name: string, target: GraphqlTarget, connections: number, seconds: number, ours: Server, handler: Server) {
  await warmGraphql(target, connections);
  const engineMeter = startCpuMeter(ours.pid);
  const handlerMeter = startCpuMeter(handler.pid);
  const machineMeter = startMachineMeter();
  const load = await loadGraphql(target, connections, seconds);
  const side: Side = {
    name,
    load,
    engine: engineMeter.perRequest(load.requests),
    handler: handlerMeter.perRequest(load.requests),
    machine: machineMeter.perRequest(load.requests),
  };
  return side;
}

const ms = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));

/**
 * Each side's CPU per request: our service, the handler, this process (autocannon), PostgreSQL,
 * the kernel's softirq time (loopback TCP delivery), and the rest (everything else running on
 * the machine meanwhile: a large rest means the run was disturbed).
 */
function cpuSplit(side: Side) {
  const { engine, handler, machine } = side;
  const known = [engine.serverMs, handler.serverMs, engine.loadGeneratorMs, engine.postgresMs, machine?.softirqMs ?? null];
  const rest =
    machine && known.every((v) => v !== null) ? Math.max(0, machine.busyMs - known.reduce((a: number, b) => a + (b as number), 0)) : null;
  return {
    service: engine.serverMs,
    handler: handler.serverMs,
    autocannon: engine.loadGeneratorMs,
    postgres: engine.postgresMs,
    softirq: machine?.softirqMs ?? null,
    rest,
    machine: machine?.busyMs ?? null,
  };
}

async function main(): Promise<void> {
  const durationSeconds = positiveNumber(process.env, "BENCH_DURATION", 10);
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
    const answered = JSON.stringify(answer) === '{"data":{"addNumbers":{"sum":3}}}';
    const payload = await (await fetch(`${handler.url}/last`)).text();
    console.log(`answer: ${JSON.stringify(answer)}; handler calls per request: ${callsPerRequest}`);
    console.log(`payload the service sends (replayed directly): ${payload}`);

    const engineTarget = { url: `${ours.url}/v1/graphql`, headers, bodies: [JSON.stringify(request)] };
    const directTarget = { url: `${handler.url}/add`, headers: {}, bodies: [payload] };
    const direct = await measure("direct to the handler", directTarget, connections, durationSeconds, ours, handler);
    const opened = (await handlerCounts(handler)).connections;
    const engine = await measure(`${actionType} through our service`, engineTarget, connections, durationSeconds, ours, handler);
    // Our service keeps its connections to the handler open (http-post.ts): a handful for the whole run, not one per call.
    const serviceConnections = (await handlerCounts(handler)).connections - opened;
    const ratio = engine.load.requestsPerSecond / direct.load.requestsPerSecond;

    console.log(`\nsync action, ${connections} connections, ${durationSeconds} s each; CPU in ms per request, from /proc:`);
    const rows = [direct, engine].map((s) => ({ s, cpu: cpuSplit(s) }));
    printTable(
      ["", "req/s", "p50 ms", "p99 ms", "errors", "service", "handler", "autocannon", "softirq", "rest", "machine"],
      rows.map(({ s, cpu }) => [
        s.name,
        s.load.requestsPerSecond.toFixed(0),
        String(s.load.p50Ms),
        String(s.load.p99Ms),
        String(s.load.errors + s.load.non2xx),
        ms(cpu.service),
        ms(cpu.handler),
        ms(cpu.autocannon),
        ms(cpu.softirq),
        ms(cpu.rest),
        ms(cpu.machine),
      ]),
    );
    console.log("rest: CPU no process above was charged with (the kernel's loopback TCP work, anything else running); machine: all of it.");
    // What bounds the ratio: our service is one single-threaded process and does a handler's HTTP work twice over.
    console.log(`connections our service opened to the handler while loaded (warm-up included): ${serviceConnections}`);
    const serviceMs = rows[1]?.cpu.service;
    if (serviceMs) {
      console.log(
        `our service: ${serviceMs.toFixed(3)} ms of CPU per action request, so one core caps it at ${(1000 / serviceMs).toFixed(0)} req/s ` +
          `(measured ${engine.load.requestsPerSecond.toFixed(0)}); the handler alone: ${ms(rows[0]?.cpu.handler ?? null)} ms per call.`,
      );
    }
    const clean = direct.load.errors + direct.load.non2xx + engine.load.errors + engine.load.non2xx === 0;
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
      callsPerRequest,
      serviceConnections,
      payload,
      direct: { ...direct, cpu: cpuSplit(direct) },
      engine: { ...engine, cpu: cpuSplit(engine) },
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

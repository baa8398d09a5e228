/**
 * Live queries under load, beside Hasura's published figure (10,000 live queries on 2 vCPU at 73%
 * CPU, 1 s refetch interval; its pass rule: 0 errors and an average change-to-client latency
 * under 1 s: https://github.com/hasura/graphql-engine/blob/master/architecture/live-queries.md).
 *
 * Our service runs as its own process on a fresh database; this process holds BENCH_SUBSCRIBERS
 * sockets (graphql-transport-ws, each with its own connection_init) and writes
 * BENCH_UPDATES_PER_S single-row updates a second for BENCH_DURATION seconds, on one PostgreSQL
 * connection of its own. Two runs:
 *
 * - `100 cohorts`: role `reader` (a permission that reads no session variable), each subscriber
 *   watching one of 100 rows by a variable: subscribers of a row share one cohort;
 * - `1 cohort each`: role `owner` (rows filtered by `X-Hasura-User-Id`), each subscriber its own
 *   user: as many cohorts as subscribers.
 *
 * Printed per run: errors (error messages, closed sockets), every subscriber's final value against
 * the table's (live queries may skip intermediate values, as Hasura's do), latency from an
 * update's commit to the new value's arrival (p50, p99, mean), statements per second the engine
 * sent for the subscriptions while updating and while idle (the engine's own statement counter, read
 * through a route the bench's wrapper of the service adds, subscriptions-server.ts; what it sends
 * with no subscriber, its metadata and async-action polls, measured first and taken out), the
 * engine's resident memory per subscriber (and its JavaScript heap's after a full collection,
 * which RSS follows with lag) and its CPU (cores) while updating.
 * Each run twice: with the change signal (a poller polls when a table it reads was written) and
 * without it (every HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL, 1000 ms here as in
 * Hasura), with the write cost of the signal: one single-row UPDATE's time from one connection,
 * trigger and notification included when the signal is on, against the same without.
 *
 *   npm run bench:graphql-subscriptions -w bench
 *   BENCH_SUBSCRIBERS=2000 BENCH_DURATION=10 npm run bench:graphql-subscriptions -w bench
 */
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import WebSocket from "ws";
import { processCpu } from "../common/cpu.js";
import { positiveNumber } from "../common/env.js";
import { residentMemoryMb } from "../common/processes.js";
import { fixed, printTable, runBench, writeJson } from "../common/report.js";
import { ADMIN_SECRET, postJson, type Server, startOurs } from "./processes.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BASE = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = "bench_subscriptions";
const url = BASE.replace(/\/[^/]*$/, `/${DB}`);
const SUBSCRIBERS = positiveNumber(process.env, "BENCH_SUBSCRIBERS", 10_000);
const UPDATES_PER_S = positiveNumber(process.env, "BENCH_UPDATES_PER_S", 100);
const DURATION_S = positiveNumber(process.env, "BENCH_DURATION", 20);
const REFETCH_MS = positiveNumber(process.env, "BENCH_REFETCH_MS", 1000);
const IDLE_S = 5;
/** The change signal on and off (BENCH_SIGNAL=on or off for one of them). */
const SIGNALS = process.env.BENCH_SIGNAL === "on" ? [true] : process.env.BENCH_SIGNAL === "off" ? [false] : [true, false];
const WRITES = 2000;
/** Hasura's anchor: 10,000 live queries on 2 vCPU at 73% CPU, average latency under 1 s. */
const HASURA = { subscribers: 10_000, cpuCores: 2 * 0.73, latencyMs: 1000 };

interface Run {
  name: string;
  role: "reader" | "owner";
  /** The row subscriber `i` watches. */
  row(i: number): number;
  query: string;
  variables(i: number): Record<string, unknown>;
}

const RUNS: Run[] = [
  {
    name: "100 cohorts",
    role: "reader",
    row: (i) => 1 + (i % 100),
    query: "subscription ($id: Int!) { counters(where: {id: {_eq: $id}}) { id value } }",
    variables: (i) => ({ id: 1 + (i % 100) }),
  },
  {
    name: "1 cohort each",
    role: "owner",
    row: (i) => i + 1,
    query: "subscription { counters { id value } }",
    variables: () => ({}),
  },
];

async function prepare(): Promise<void> {
  const admin = new pg.Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`
    CREATE TABLE counters (id int PRIMARY KEY, owner int NOT NULL, value int NOT NULL);
    INSERT INTO counters SELECT i, i, 0 FROM generate_series(1, ${Math.max(SUBSCRIBERS, 100)}) i;
    CREATE INDEX ON counters (owner);
    ANALYZE counters;`);
  await client.end();
}

async function track(server: Server): Promise<void> {
  await postJson(
    `${server.url}/v1/metadata`,
    {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "counters" } },
        {
          type: "pg_create_select_permission",
          args: { table: "counters", role: "reader", permission: { columns: ["id", "value"], filter: {} } },
        },
        {
          type: "pg_create_select_permission",
          args: {
            table: "counters",
            role: "owner",
            permission: { columns: ["id", "value"], filter: { owner: { _eq: "X-Hasura-User-Id" } } },
          },
        },
      ],
    },
    { "x-hasura-admin-secret": ADMIN_SECRET },
  );
}

/** One subscriber: its socket, the last value it got and when each value arrived. */
class Subscriber {
  value = -1;
  errors = 0;
  readonly arrivals: Array<{ value: number; at: number }> = [];
  private ws!: WebSocket;

  constructor(
    private readonly wsUrl: string,
    private readonly headers: Record<string, string>,
    private readonly payload: { query: string; variables: Record<string, unknown> },
  ) {}

  /** Opens, initialises and subscribes; resolves with the first answer. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.wsUrl, "graphql-transport-ws");
      this.ws = ws;
      let first = true;
      ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: { headers: this.headers } })));
      ws.on("error", reject);
      ws.on("message", (data) => {
        const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { counters?: Array<{ value: number }> } } };
        if (message.type === "connection_ack") ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: this.payload }));
        else if (message.type === "ping") ws.send('{"type":"pong"}');
        else if (message.type === "next") {
          const row = message.payload?.data?.counters?.[0];
          if (!row) this.errors += 1;
          else {
            this.value = row.value;
            this.arrivals.push({ value: row.value, at: performance.now() });
          }
          if (first) {
            first = false;
            resolve();
          }
        } else if (message.type === "error") {
          this.errors += 1;
          reject(new Error(JSON.stringify(message.payload)));
        }
      });
      ws.on("close", (code) => {
        if (code !== 1000) this.errors += 1;
      });
    });
  }

  close(): void {
    this.ws.close(1000);
  }
}

/** Statements the engine has sent to PostgreSQL so far (its own counter, through the bench's route). */
async function statements(server: Server): Promise<number> {
  const response = await fetch(`${server.url}/bench/statements`, { signal: AbortSignal.timeout(10_000) });
  return ((await response.json()) as { sent: number }).sent;
}

/** The engine's JavaScript heap in use after a full collection (bytes). */
async function heapUsed(server: Server): Promise<number> {
  const response = await fetch(`${server.url}/bench/heap`, { signal: AbortSignal.timeout(10_000) });
  return ((await response.json()) as { heapUsed: number }).heapUsed;
}

/**
 * What one single-row UPDATE takes, committed, from one connection (mean of WRITES, after 200 to
 * warm up), with the trigger and its notification when the signal is on: its cost to writers.
 */
async function writeCost(): Promise<number> {
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  try {
    for (let i = 0; i < 200; i++) await writer.query("UPDATE counters SET value = value WHERE id = $1", [1 + (i % 100)]);
    const started = performance.now();
    for (let i = 0; i < WRITES; i++) await writer.query("UPDATE counters SET value = value WHERE id = $1", [1 + (i % 100)]);
    return (performance.now() - started) / WRITES;
  } finally {
    await writer.end();
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;

async function measure(run: Run, server: Server): Promise<Record<string, number | string | null>> {
  const wsUrl = `${server.url.replace(/^http/, "ws")}/v1/graphql`;
  // What the engine sends with no subscriber (its metadata and async-action polls), taken out below.
  const backgroundBefore = await statements(server);
  await sleep(IDLE_S * 1000);
  const background = ((await statements(server)) - backgroundBefore) / IDLE_S;
  const before = residentMemoryMb(server.pid);
  const heapBefore = await heapUsed(server);
  const subscribers: Subscriber[] = [];
  const opened = performance.now();
  for (let start = 0; start < SUBSCRIBERS; start += 250) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(SUBSCRIBERS, start + 250); i++) {
      const headers = { "x-hasura-admin-secret": ADMIN_SECRET, "x-hasura-role": run.role, "x-hasura-user-id": String(i + 1) };
      const subscriber = new Subscriber(wsUrl, headers, { query: run.query, variables: run.variables(i) });
      subscribers.push(subscriber);
      batch.push(subscriber.start());
    }
    await Promise.all(batch);
  }
  const subscribeS = (performance.now() - opened) / 1000;
  await sleep(2 * REFETCH_MS);
  const after = residentMemoryMb(server.pid);
  const heapAfter = await heapUsed(server);

  // Updates: rows of the watched set in turn, each commit time kept by (row, value).
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  const rows = run.role === "reader" ? 100 : SUBSCRIBERS;
  const committed = new Map<string, number>();
  const txBefore = await statements(server);
  const cpuBefore = processCpu(server.pid)?.ms ?? null;
  const started = performance.now();
  const total = Math.round(UPDATES_PER_S * DURATION_S);
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / UPDATES_PER_S;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const id = 1 + (n % rows);
    const { rows: updated } = await writer.query<{ value: number }>("UPDATE counters SET value = value + 1 WHERE id = $1 RETURNING value", [
      id,
    ]);
    committed.set(`${id}:${updated[0]?.value}`, performance.now());
  }
  const updatingMs = performance.now() - started;
  const cpuAfter = processCpu(server.pid)?.ms ?? null;
  const { rows: finals } = await writer.query<{ id: number; value: number }>("SELECT id, value FROM counters");
  // A backend reports its counts when it ends (an idle one may hold them for 10 s).
  await writer.end();
  await sleep(2 * REFETCH_MS + 1000);
  const updatingWindowS = (performance.now() - started) / 1000;
  const txUpdating = (await statements(server)) - txBefore;

  // Idle: nothing written.
  const idleBefore = await statements(server);
  await sleep(IDLE_S * 1000);
  const idleTx = (await statements(server)) - idleBefore;

  const final = new Map(finals.map((r) => [r.id, r.value]));
  let wrong = 0;
  let errors = 0;
  const latencies: number[] = [];
  for (const [i, subscriber] of subscribers.entries()) {
    const row = run.row(i);
    if (subscriber.value !== final.get(row)) wrong += 1;
    errors += subscriber.errors;
    for (const arrival of subscriber.arrivals) {
      const at = committed.get(`${row}:${arrival.value}`);
      if (at !== undefined) latencies.push(arrival.at - at);
    }
    subscriber.close();
  }
  latencies.sort((a, b) => a - b);
  const mean = latencies.length ? latencies.reduce((s, v) => s + v, 0) / latencies.length : null;
  await sleep(500);
  return {
    run: run.name,
    subscribers: SUBSCRIBERS,
    subscribeS,
    errors,
    wrongFinalValues: wrong,
    deliveries: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    meanMs: mean,
    backgroundPerS: background,
    statementsPerSUpdating: txUpdating / updatingWindowS - background,
    statementsPerSIdle: idleTx / IDLE_S - background,
    kbPerSubscriber: before !== null && after !== null ? ((after - before) * 1024) / SUBSCRIBERS : null,
    heapKbPerSubscriber: (heapAfter - heapBefore) / 1024 / SUBSCRIBERS,
    engineCores: cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / updatingMs : null,
  };
}

async function main(): Promise<number> {
  console.log(
    `live queries: ${SUBSCRIBERS} subscribers, ${UPDATES_PER_S} updates/s for ${DURATION_S} s, refetch ${REFETCH_MS} ms (engine, PostgreSQL and this load generator on one machine)`,
  );
  const results: Array<Record<string, number | string | null>> = [];
  for (const run of RUNS)
    for (const signal of SIGNALS) {
      await prepare();
      const server = await startOurs(ROOT, url, 8, undefined, {
        entry: "bench/graphql/subscriptions-server.ts",
        env: {
          HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: String(REFETCH_MS),
          HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL: String(signal),
          // For /bench/heap: the heap measured after a full collection.
          NODE_OPTIONS: "--expose-gc",
        },
      });
      try {
        await track(server);
        // Before any subscriber: the trigger's cost alone, not the polling engine's load.
        const writeMs = await writeCost();
        const result = { ...(await measure(run, server)), signal: signal ? "on" : "off", writeMs };
        console.log(`  ${run.name}, signal ${signal ? "on" : "off"}: ${JSON.stringify(result)}`);
        results.push(result);
      } finally {
        await server.stop();
      }
    }
  printTable(
    [
      "run",
      "signal",
      "errors",
      "wrong final",
      "p50 ms",
      "p99 ms",
      "mean ms",
      "stmts/s updating",
      "stmts/s idle",
      "background/s",
      "KB/subscriber",
      "heap KB/sub",
      "engine cores",
      "write ms",
    ],
    results.map((r) => [
      String(r.run),
      String(r.signal),
      String(r.errors),
      String(r.wrongFinalValues),
      fixed(r.p50Ms as number),
      fixed(r.p99Ms as number),
      fixed(r.meanMs as number),
      fixed(r.statementsPerSUpdating as number, 1),
      fixed(r.statementsPerSIdle as number, 1),
      fixed(r.backgroundPerS as number, 1),
      fixed(r.kbPerSubscriber as number, 1),
      fixed(r.heapKbPerSubscriber as number, 1),
      fixed(r.engineCores as number, 2),
      fixed(r.writeMs as number, 3),
    ]),
  );
  console.log(
    `\nHasura (published, not measured here): ${HASURA.subscribers} live queries on 2 vCPU at ${HASURA.cpuCores.toFixed(2)} cores, mean latency under ${HASURA.latencyMs} ms, refetch 1000 ms`,
  );
  for (const run of RUNS) {
    const on = results.find((r) => r.run === run.name && r.signal === "on");
    const off = results.find((r) => r.run === run.name && r.signal === "off");
    if (on && off)
      console.log(
        `  ${run.name}: with the signal, p50 ${fixed(((on.p50Ms as number) / (off.p50Ms as number)) * 100)}% of without, idle statements ${fixed(on.statementsPerSIdle as number, 1)}/s against ${fixed(off.statementsPerSIdle as number, 1)}/s; a write costs ${fixed((on.writeMs as number) / (off.writeMs as number), 2)}x`,
      );
  }
  for (const r of results)
    console.log(
      `  ${r.run}, signal ${r.signal}: mean latency ${fixed(((r.meanMs as number) / HASURA.latencyMs) * 100)}% of Hasura's bound; engine ${fixed(((r.engineCores as number) / HASURA.cpuCores) * 100)}% of Hasura's CPU for ${SUBSCRIBERS} subscribers`,
    );
  writeJson(resolve(ROOT, "bench/.data/results/graphql-subscriptions.json"), {
    subscribers: SUBSCRIBERS,
    updatesPerS: UPDATES_PER_S,
    results,
  });
  return results.every((r) => r.errors === 0 && r.wrongFinalValues === 0) ? 0 : 1;
}

runBench(main);

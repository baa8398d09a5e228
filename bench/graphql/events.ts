/**
 * `npm run bench:graphql-events`: event triggers under a steady write load, on a throw-away
 * PostgreSQL database `bench_events`, the engine as real processes, a local receiver in the bench.
 *
 * 1. Capture cost: BENCH_CONNECTIONS loops insert one row per statement for BENCH_CAPTURE_SECONDS
 *    into a table with an insert trigger and into the same table without one (delivery off), the
 *    ratio of their rates being what capturing adds to an insert.
 * 2. Delivery, on one instance and then on two: BENCH_RATE inserts per second for BENCH_DURATION
 *    seconds into the triggered table (single-row statements, paced), every event delivered to the
 *    receiver. Reported: events delivered, none lost, none twice, and the lag from the insert's
 *    commit (its answer to the bench) to the receiver's arrival, p50 and p99; the targets are
 *    Hasura-beating: p50 under 100 ms, p99 under 1 s (Hasura polls once a second).
 *
 *   BENCH_RATE              inserts per second (default 2000)
 *   BENCH_DURATION          seconds of each delivery phase (default 60)
 *   BENCH_CAPTURE_SECONDS   seconds of each capture-cost loop (default 10)
 *   BENCH_CONNECTIONS       the inserters' connections (default 16)
 *   BENCH_PG_URL            the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { closedLoop, percentile } from "../common/closed-loop.js";
import { positiveNumber } from "../common/env.js";
import { onServer } from "../common/pg-server.js";
import { fixed, printTable, printTargets, runBench, writeJson } from "../common/report.js";
import { ADMIN_SECRET, postJson, type Server, startOurs } from "./processes.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/graphql-events.json");
const DATABASE = "bench_events";

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    rate: number("BENCH_RATE", 2000),
    durationSeconds: number("BENCH_DURATION", 60),
    captureSeconds: number("BENCH_CAPTURE_SECONDS", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 16)),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  };
}

/** The receiver: arrival time per row id, and how many times each id arrived. */
async function startReceiver() {
  const arrivals = new Map<number, number[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: { data: { new: { id: number } } } };
      const id = body.event.data.new.id;
      const seen = arrivals.get(id);
      if (seen) seen.push(at);
      else arrivals.set(id, [at]);
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const metadata = (engine: Server, body: unknown) => postJson(`${engine.url}/v1/metadata`, body, { "x-hasura-admin-secret": ADMIN_SECRET });

/** Inserts at `rate` per second for `seconds`, in 10 ms ticks; answers each row's commit time by id. */
async function pacedInserts(pool: pg.Pool, rate: number, seconds: number): Promise<{ committed: Map<number, number>; failed: number }> {
  const committed = new Map<number, number>();
  let failed = 0;
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  const total = Math.round(rate * seconds);
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) {
      const insert = pool
        .query<{ id: number }>("INSERT INTO evt_item (label) VALUES ('x') RETURNING id")
        .then((result) => {
          committed.set(result.rows[0]?.id as number, performance.now());
        })
        .catch(() => {
          failed += 1;
        });
      pending.add(insert);
      void insert.finally(() => pending.delete(insert));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(pending);
  return { committed, failed };
}

interface DeliveryResult {
  instances: number;
  inserted: number;
  failedInserts: number;
  delivered: number;
  lost: number;
  twice: number;
  lagP50Ms: number;
  lagP99Ms: number;
  drainSeconds: number;
}

async function deliveryPhase(
  config: ReturnType<typeof settings>,
  url: string,
  pool: pg.Pool,
  instances: number,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
): Promise<DeliveryResult> {
  receiver.arrivals.clear();
  await pool.query("TRUNCATE hdb_catalog.event_log, hdb_catalog.event_invocation_logs, evt_item RESTART IDENTITY");
  const engines: Server[] = [];
  for (let i = 0; i < instances; i++)
    engines.push(await startOurs(ROOT, url, 20, undefined, { env: { EVENT_RECEIVER: receiver.url, HASURA_GRAPHQL_LOG_LEVEL: "error" } }));
  try {
    const { committed, failed } = await pacedInserts(pool, config.rate, config.durationSeconds);
    const ended = performance.now();
    while (receiver.arrivals.size < committed.size && performance.now() - ended < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainSeconds = (performance.now() - ended) / 1000;
    const lags: number[] = [];
    let twice = 0;
    for (const [id, at] of committed) {
      const arrivals = receiver.arrivals.get(id);
      if (!arrivals) continue;
      if (arrivals.length > 1) twice += 1;
      lags.push(Math.max(0, (arrivals[0] as number) - at));
    }
    lags.sort((a, b) => a - b);
    return {
      instances,
      inserted: committed.size,
      failedInserts: failed,
      delivered: lags.length,
      lost: committed.size - lags.length,
      twice,
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      drainSeconds,
    };
  } finally {
    for (const engine of engines) await engine.stop();
  }
}

async function captureCost(config: ReturnType<typeof settings>, pool: pg.Pool) {
  const loop = (table: string) =>
    closedLoop({
      workers: config.connections,
      warmupSeconds: 1,
      seconds: config.captureSeconds,
      once: async () => {
        await pool.query(`INSERT INTO ${table} (label) VALUES ('x')`);
      },
    });
  const plain = await loop("evt_plain");
  const captured = await loop("evt_item");
  return { plain, captured, ratio: captured.requestsPerSecond / plain.requestsPerSecond };
}

async function main(): Promise<number> {
  const config = settings(process.env);
  const url = new URL(config.serverUrl);
  await onServer(config.serverUrl, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await onServer(config.serverUrl, `CREATE DATABASE ${DATABASE}`);
  url.pathname = `/${DATABASE}`;
  const receiver = await startReceiver();
  const pool = new pg.Pool({ connectionString: url.toString(), max: config.connections });
  // An idle connection ended by the final DROP DATABASE must not hide the run's own error.
  pool.on("error", () => {});
  try {
    await pool.query("CREATE TABLE evt_item (id serial PRIMARY KEY, label text, at timestamptz DEFAULT now())");
    await pool.query("CREATE TABLE evt_plain (id serial PRIMARY KEY, label text, at timestamptz DEFAULT now())");
    // Set up through the engine with delivery off, so the capture-cost loops run without deliveries.
    const setup = await startOurs(ROOT, url.toString(), 4, undefined, {
      env: { EVENT_RECEIVER: receiver.url, HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0" },
    });
    try {
      await metadata(setup, { type: "pg_track_table", args: { table: "evt_item" } });
      await metadata(setup, { type: "pg_track_table", args: { table: "evt_plain" } });
      await metadata(setup, {
        type: "pg_create_event_trigger",
        args: { name: "evt_item_insert", table: "evt_item", webhook: "{{EVENT_RECEIVER}}/", insert: { columns: "*" } },
      });
    } finally {
      await setup.stop();
    }
    console.log(`events: capture cost over ${config.captureSeconds}s, then ${config.rate} inserts/s for ${config.durationSeconds}s`);
    const capture = await captureCost(config, pool);
    // The change signal's statement trigger is on both tables (both are tracked): the ratio is the row trigger's cost.
    console.log(
      `capture: ${fixed(capture.captured.requestsPerSecond)} inserts/s with the trigger, ${fixed(capture.plain.requestsPerSecond)} without (${fixed(capture.ratio, 2)}x)`,
    );
    const phases: DeliveryResult[] = [];
    for (const instances of [1, 2]) {
      const result = await deliveryPhase(config, url.toString(), pool, instances, receiver);
      phases.push(result);
      console.log(`${instances} instance(s): ${JSON.stringify(result)}`);
    }
    printTable(
      ["instances", "inserted", "delivered", "lost", "twice", "lag p50 ms", "lag p99 ms", "drain s"],
      phases.map((p) => [
        String(p.instances),
        String(p.inserted),
        String(p.delivered),
        String(p.lost),
        String(p.twice),
        fixed(p.lagP50Ms, 1),
        fixed(p.lagP99Ms, 1),
        fixed(p.drainSeconds, 1),
      ]),
    );
    const targets = phases.flatMap((p) => [
      {
        name: `${p.instances} instance(s): all delivered, none twice`,
        limit: "0 / 0",
        value: `${p.lost} / ${p.twice}`,
        pass: p.lost === 0 && p.twice === 0,
      },
      { name: `${p.instances} instance(s): lag p50`, limit: "< 100 ms", value: `${fixed(p.lagP50Ms, 1)} ms`, pass: p.lagP50Ms < 100 },
      { name: `${p.instances} instance(s): lag p99`, limit: "< 1000 ms", value: `${fixed(p.lagP99Ms, 1)} ms`, pass: p.lagP99Ms < 1000 },
    ]);
    const pass = targets.every((t) => t.pass);
    printTargets(targets, pass);
    writeJson(RESULTS, { settings: config, capture, phases, pass });
    return pass ? 0 : 1;
  } finally {
    await pool.end();
    await receiver.close();
    await onServer(config.serverUrl, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  }
}

runBench(main);

/**
 * `npm run bench:graphql-remote -w bench`: a query over 100 rows that joins each row to a remote
 * schema field (a remote relationship), next to the same query with the join answered by the
 * table itself (an object relationship), on the same PostgreSQL, our service as its own process
 * and the remote a graphql-js server in this one. Prints the remote calls per request (one per
 * relationship per level is the target) and the throughput ratio (target: at least 0.8x).
 * Not part of `npm test`.
 *
 *   BENCH_DURATION     seconds of measured load per query (default 10)
 *   BENCH_CONNECTIONS  concurrent HTTP connections (default 16)
 *   BENCH_PG_URL       the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_CPU_PROF     set to 1 to run our service with --cpu-prof and print its hottest functions
 *
 * Exit code 0 when both targets pass, 1 otherwise.
 */

import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase } from "@platform/core";
import { buildSchema, type DocumentNode, execute, parse, validate } from "graphql";
import { positiveNumber } from "../common/env.js";
import { printTargets, writeJson } from "../common/report.js";
import { ensureDatabase } from "./dataset.js";
import { loadGraphql, warmGraphql } from "./load.js";
import { ADMIN_SECRET, postJson, startOurs } from "./processes.js";
import { topSelfTime } from "./profile.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/graphql-remote-join.json");
const ROWS = 100;

const REMOTE_SDL = `type User { id: Int! name: String! }
type Query { user(id: Int!): User }`;

/**
 * The remote: `user(id)` answered from memory (the same 100 users as the table), counting its
 * requests and the CPU time it spends. Parsed and validated documents are cached by their text,
 * as GraphQL Yoga and Apollo Server do by default. With `cacheResponses` on it answers a request it
 * has answered before with the same bytes without executing it (a full response cache, as Apollo
 * Server's response-cache plugin keeps): its own work then nearly vanishes, and what is left of
 * the gap to the table join is the engine's.
 */
async function startRemote(users: Map<number, { id: number; name: string }>) {
  const schema = buildSchema(REMOTE_SDL);
  const root = { user: ({ id }: { id: number }) => users.get(id) ?? null };
  const documents = new Map<string, DocumentNode>();
  const responses = new Map<string, string>();
  let cacheResponses = false;
  let requests = 0;
  let busyMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      requests += 1;
      const started = performance.now();
      const raw = Buffer.concat(chunks).toString("utf8");
      const cached = cacheResponses ? responses.get(raw) : undefined;
      if (cached !== undefined) {
        busyMs += performance.now() - started;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(cached);
        return;
      }
      const body = JSON.parse(raw) as { query: string; variables?: Record<string, unknown> };
      let document = documents.get(body.query);
      let result: unknown;
      if (!document) {
        const parsed = parse(body.query);
        const errors = validate(schema, parsed);
        if (errors.length === 0) documents.set(body.query, parsed);
        else result = { errors };
        document = parsed;
      }
      result ??= await execute({ schema, document, rootValue: root, variableValues: body.variables ?? null });
      const text = JSON.stringify(result);
      if (cacheResponses) responses.set(raw, text);
      busyMs += performance.now() - started;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    requests: () => requests,
    setCacheResponses: (on: boolean) => {
      cacheResponses = on;
    },
    /** Milliseconds the remote spent answering (parse, execute, print), over every request so far. */
    busyMs: () => busyMs,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const SCHEMA_SQL = `
DROP TABLE IF EXISTS bench_item; DROP TABLE IF EXISTS bench_user;
CREATE TABLE bench_user (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE bench_item (id int PRIMARY KEY, user_id int NOT NULL REFERENCES bench_user (id), title text NOT NULL);
INSERT INTO bench_user SELECT i, 'user ' || i FROM generate_series(1, ${ROWS}) i;
INSERT INTO bench_item SELECT i, i, 'item ' || i FROM generate_series(1, ${ROWS}) i;`;

const REMOTE_QUERY = `{ bench_item(order_by: {id: asc}) { id title remote_user { id name } } }`;
const LOCAL_QUERY = `{ bench_item(order_by: {id: asc}) { id title user { id name } } }`;

async function main(): Promise<void> {
  const durationSeconds = positiveNumber(process.env, "BENCH_DURATION", 10);
  const connections = Math.round(positiveNumber(process.env, "BENCH_CONNECTIONS", 16));
  const serverUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseUrl = await ensureDatabase(serverUrl, "bench_remote_join");
  const db = await openDatabase({ url: databaseUrl, maxConnections: 1 });
  await db.exec(SCHEMA_SQL);
  await db.close();
  const users = new Map(Array.from({ length: ROWS }, (_, i) => [i + 1, { id: i + 1, name: `user ${i + 1}` }]));
  const remote = await startRemote(users);
  const profileDir = process.env.BENCH_CPU_PROF ? join(ROOT, "bench/.data/profiles-remote-join") : undefined;
  if (profileDir) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const ours = await startOurs(ROOT, databaseUrl, connections, profileDir);
  const headers = { "x-hasura-admin-secret": ADMIN_SECRET };
  try {
    const setup = (await postJson(
      `${ours.url}/v1/metadata`,
      {
        type: "bulk",
        args: [
          { type: "clear_metadata", args: {} },
          { type: "pg_track_table", args: { table: "bench_user" } },
          { type: "pg_track_table", args: { table: "bench_item" } },
          {
            type: "pg_create_object_relationship",
            args: { table: "bench_item", name: "user", using: { foreign_key_constraint_on: "user_id" } },
          },
          { type: "add_remote_schema", args: { name: "users", definition: { url: remote.url, timeout_seconds: 30 } } },
          {
            type: "pg_create_remote_relationship",
            args: {
              table: "bench_item",
              name: "remote_user",
              definition: {
                to_remote_schema: {
                  remote_schema: "users",
                  lhs_fields: ["user_id"],
                  remote_field: { user: { arguments: { id: "$user_id" } } },
                },
              },
            },
          },
        ],
      },
      headers,
    )) as unknown;
    console.log("metadata:", JSON.stringify(setup).slice(0, 300));

    // The same answer both ways, then the remote calls one request makes.
    const local = (await postJson(`${ours.url}/v1/graphql`, { query: LOCAL_QUERY }, headers)) as {
      data?: { bench_item: Array<Record<string, unknown>> };
    };
    const before = remote.requests();
    const joined = (await postJson(`${ours.url}/v1/graphql`, { query: REMOTE_QUERY }, headers)) as {
      data?: { bench_item: Array<Record<string, unknown>> };
    };
    const callsPerRequest = remote.requests() - before;
    const same =
      JSON.stringify(joined.data?.bench_item.map((r) => r.remote_user)) === JSON.stringify(local.data?.bench_item.map((r) => r.user));
    console.log(`remote calls for one request over ${ROWS} rows: ${callsPerRequest}; same data as the table join: ${same}`);
    if (!same) console.log("remote answer:", JSON.stringify(joined).slice(0, 500));

    const target = (query: string) => ({ url: `${ours.url}/v1/graphql`, headers, bodies: [JSON.stringify({ query })] });
    await warmGraphql(target(LOCAL_QUERY), connections);
    const localLoad = await loadGraphql(target(LOCAL_QUERY), connections, durationSeconds);
    await warmGraphql(target(REMOTE_QUERY), connections);
    const [busyBefore, callsBefore] = [remote.busyMs(), remote.requests()];
    const remoteLoad = await loadGraphql(target(REMOTE_QUERY), connections, durationSeconds);
    const remoteMsPerCall = (remote.busyMs() - busyBefore) / Math.max(1, remote.requests() - callsBefore);
    remote.setCacheResponses(true);
    await warmGraphql(target(REMOTE_QUERY), connections);
    const [cachedBusyBefore, cachedCallsBefore] = [remote.busyMs(), remote.requests()];
    const cachedLoad = await loadGraphql(target(REMOTE_QUERY), connections, durationSeconds);
    const cachedMsPerCall = (remote.busyMs() - cachedBusyBefore) / Math.max(1, remote.requests() - cachedCallsBefore);
    const ratio = remoteLoad.requestsPerSecond / localLoad.requestsPerSecond;
    const engineRatio = cachedLoad.requestsPerSecond / localLoad.requestsPerSecond;
    console.log(`table join: ${localLoad.requestsPerSecond.toFixed(0)} req/s (p50 ${localLoad.p50Ms} ms, p99 ${localLoad.p99Ms} ms)`);
    console.log(`remote join: ${remoteLoad.requestsPerSecond.toFixed(0)} req/s (p50 ${remoteLoad.p50Ms} ms, p99 ${remoteLoad.p99Ms} ms)`);
    console.log(
      `remote join, the remote answering from its response cache (${cachedMsPerCall.toFixed(3)} ms a call): ${cachedLoad.requestsPerSecond.toFixed(0)} req/s (p50 ${cachedLoad.p50Ms} ms, p99 ${cachedLoad.p99Ms} ms), ${engineRatio.toFixed(2)}x the table join`,
    );
    // What bounds the ratio: on these shared cores the remote's own work is part of every request's cost.
    const tableMsPerRequest = 1000 / localLoad.requestsPerSecond;
    console.log(
      `the remote's own work: ${remoteMsPerCall.toFixed(2)} ms per call; the whole table-join request: ${tableMsPerRequest.toFixed(2)} ms of wall time at this concurrency`,
    );
    const targets = [
      {
        name: "remote calls per request (one relationship, one level)",
        limit: "1",
        value: String(callsPerRequest),
        pass: callsPerRequest === 1 && same,
      },
      { name: "throughput, remote join / table join", limit: ">= 0.8x", value: `${ratio.toFixed(2)}x`, pass: ratio >= 0.8 },
      {
        name: "the same, the remote's own work taken out (response cache)",
        limit: ">= 0.8x",
        value: `${engineRatio.toFixed(2)}x`,
        pass: engineRatio >= 0.8,
      },
    ];
    const pass = targets.every((t) => t.pass) && localLoad.errors === 0 && remoteLoad.errors === 0 && cachedLoad.errors === 0;
    printTargets(targets, pass);
    writeJson(RESULTS, {
      rows: ROWS,
      connections,
      durationSeconds,
      callsPerRequest,
      same,
      local: localLoad,
      remote: remoteLoad,
      remoteCached: cachedLoad,
      ratio,
      engineRatio,
      pass,
    });
    process.exitCode = pass ? 0 : 1;
  } finally {
    await ours.stop();
    await remote.close();
  }
  const hot = profileDir ? topSelfTime(profileDir, ROOT) : null;
  if (hot) for (const h of hot.hotspots) console.log(`  ${h.percent.toFixed(1)}%  ${h.function}  ${h.location}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

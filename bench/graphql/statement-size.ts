/**
 * Where PostgreSQL's planning of one statement turns superlinear, and what splitting an operation
 * over statements (the engine's statement size bounds) does about it. For `k` aliases of a
 * selection (SHAPE=three: `users { posts { comments { text } } }`; flat: `posts { id title }`), as
 * a role with own-row filters:
 *
 * - single: the engine's SQL for one alias, repeated k times in ONE statement (packed in one
 *   array column, as an engine without bounds would send it);
 * - split: the statements the engine sends for the k aliases with its default bounds.
 *
 * Each is EXPLAINed (planned, not run) on a fresh connection whose backend's peak resident memory
 * is read from /proc (the server must be local). Prints per k the SELECTs (subqueries as the
 * planner sees them), planning time of single and split, their ratio, and the backends' peak
 * memory. Planning is the part PostgreSQL cannot interrupt, so this is what the bounds bound.
 *
 *   npm run bench:graphql-statements -w bench
 *   SHAPE=flat SIZES=100,1000,4000,8000 npm run bench:graphql-statements -w bench
 */
import { readFileSync } from "node:fs";
import { type Compiled, compile, type Database, openDatabase, Sql } from "@platform/core";
import { buildModel, Engine, introspect, type Metadata, type Session } from "@platform/graphql";
import pg from "pg";

const BASE = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = "bench_statement_size";
const url = BASE.replace(/\/[^/]*$/, `/${DB}`);
const shape = process.env.SHAPE === "flat" ? "flat" : "three";
const sizes = (process.env.SIZES ?? (shape === "flat" ? "10,100,500,1000,2000,4000" : "10,50,100,200,400,800,1600")).split(",").map(Number);
const SELECTION = shape === "flat" ? "posts { id title }" : "users { posts { comments { text } } }";

const SCHEMA = `
  CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
  CREATE TABLE posts (id int PRIMARY KEY, user_id int NOT NULL REFERENCES users (id), title text NOT NULL);
  CREATE TABLE comments (id int PRIMARY KEY, post_id int NOT NULL REFERENCES posts (id), user_id int NOT NULL REFERENCES users (id), text text NOT NULL);
  CREATE INDEX ON posts (user_id); CREATE INDEX ON comments (post_id); CREATE INDEX ON comments (user_id);
  INSERT INTO users SELECT i, 'user ' || i FROM generate_series(1, 300) i;
  INSERT INTO posts SELECT i, 1 + i % 300, 'post ' || i FROM generate_series(1, 3000) i;
  INSERT INTO comments SELECT i, 1 + i % 3000, 1 + i % 300, 'comment ' || i FROM generate_series(1, 9000) i;
  ANALYZE;
`;

const t = (name: string) => ({ schema: "public", name });
const own = (column: string) => ({ [column]: { _eq: "X-Hasura-User-Id" } });
const metadata = {
  version: 3,
  sources: [
    {
      name: "default",
      kind: "postgres",
      configuration: { connection_info: { database_url: url } },
      tables: [
        {
          table: t("users"),
          array_relationships: [{ name: "posts", using: { foreign_key_constraint_on: { table: t("posts"), column: "user_id" } } }],
          select_permissions: [{ role: "user", permission: { columns: "*", filter: own("id") } }],
        },
        {
          table: t("posts"),
          array_relationships: [{ name: "comments", using: { foreign_key_constraint_on: { table: t("comments"), column: "post_id" } } }],
          select_permissions: [{ role: "user", permission: { columns: "*", filter: own("user_id") } }],
        },
        { table: t("comments"), select_permissions: [{ role: "user", permission: { columns: "*", filter: own("user_id") } }] },
      ],
    },
  ],
} as unknown as Metadata;

const SESSION: Session = { role: "user", variables: { "x-hasura-user-id": "7" }, isAdmin: false, useBackendOnly: false };

async function prepare(): Promise<void> {
  const admin = new pg.Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(SCHEMA);
  await client.end();
}

/** The statements the engine sends for `query` (recorded, not run). */
async function statementsOf(engine: Engine, captured: Compiled[], query: string): Promise<Compiled[]> {
  captured.length = 0;
  const response = await engine.execute({ query }, SESSION);
  if (captured.length === 0) throw new Error(`no statement: ${response.slice(0, 300)}`);
  return [...captured];
}

/** One field's SQL repeated `k` times in one statement, its parameters renumbered per copy. */
function single(one: Compiled, k: number): Compiled {
  const field = /^SELECT (.*) AS "f0"$/s.exec(one.text)?.[1];
  if (!field) throw new Error(`unexpected statement: ${one.text.slice(0, 100)}`);
  const p = one.values.length;
  const copies = Array.from({ length: k }, (_, i) => field.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + i * p}`));
  return { text: `SELECT ARRAY[${copies.join(", ")}] AS f`, values: Array.from({ length: k }, () => one.values).flat() };
}

function peakKb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
}

/** Plans the statements on one fresh connection: planning ms in all, and the backend's peak memory growth (MB). */
async function plan(statements: Compiled[]): Promise<{ ms: number; mb: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid as number;
    await client.query("SELECT 1 FROM users, posts, comments LIMIT 1");
    const before = peakKb(pid);
    let ms = 0;
    for (const statement of statements) {
      const { rows } = await client.query({ text: `EXPLAIN (SUMMARY, FORMAT JSON) ${statement.text}`, values: statement.values });
      ms += (rows[0] as { "QUERY PLAN": Array<{ "Planning Time": number }> })["QUERY PLAN"][0]?.["Planning Time"] ?? 0;
    }
    return { ms, mb: (peakKb(pid) - before) / 1024 };
  } finally {
    await client.end();
  }
}

const selects = (statements: Compiled[]) => statements.reduce((n, s) => n + (s.text.match(/\bSELECT\b/g) ?? []).length, 0);

async function main(): Promise<void> {
  await prepare();
  const db = await openDatabase({ url, maxConnections: 2 });
  const captured: Compiled[] = [];
  const record: Database["query"] = (statement) => {
    captured.push(statement instanceof Sql ? compile(statement, "postgres") : statement);
    return Promise.resolve({ rows: [{}], rowCount: 1 }) as never;
  };
  // Nothing runs: every statement, a split operation's transaction too, is only recorded.
  const recording: Database = { ...db, query: record, transaction: (work) => work({ query: record, exec: async () => {} }) };
  const model = buildModel(metadata, await introspect(db, [t("users"), t("posts"), t("comments")]));
  // No size bound on the operation: the split runs at every size measured.
  const bounds = {
    rootFieldsPerStatement: 100,
    subqueriesPerStatement: 500,
    rootFieldsPerOperation: 1e9,
    subqueriesPerOperation: 1e9,
    responseBytes: 1e12,
  };
  const engine = new Engine(recording, model, { booleanNullCollapse: false, bounds });
  const [one] = await statementsOf(engine, captured, `{ a0: ${SELECTION} }`);
  console.log(`shape: ${SELECTION}; PostgreSQL at ${url}`);
  console.log("aliases  SELECTs  statements  single ms  split ms  single/split  single MB  split MB  single ms per 1,000 SELECTs");
  for (const k of sizes) {
    const split = await statementsOf(engine, captured, `{ ${Array.from({ length: k }, (_, i) => `a${i}: ${SELECTION}`).join(" ")} }`);
    const whole = single(one as Compiled, k);
    const a = await plan([whole]);
    const b = await plan(split);
    const n = selects([whole]);
    console.log(
      [
        k,
        n,
        split.length,
        a.ms.toFixed(1),
        b.ms.toFixed(1),
        `${(a.ms / b.ms).toFixed(2)}x`,
        a.mb.toFixed(0),
        b.mb.toFixed(0),
        ((a.ms / n) * 1000).toFixed(1),
      ]
        .map((v) => String(v).padStart(9))
        .join(" "),
    );
    if (a.ms > 20_000) break;
  }
  await db.close();
  const admin = new pg.Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.end();
}

await main();

/**
 * The benchmark database `bench_graphql`: 5 related tables, about 1,000,000 rows, generated in
 * SQL with generate_series (deterministic formulas, no random()) and kept between runs. It is
 * rebuilt only when a table is missing or holds a different number of rows.
 */
import { type Database, ident, openDatabase, sql } from "@platform/core";

export const DATASET_ROWS = { category: 100, author: 10_000, account: 40_000, post: 150_000, comment: 800_000 } as const;
export type DatasetTable = keyof typeof DATASET_ROWS;

export interface Dataset {
  url: string;
  rows: Record<DatasetTable, number>;
  /** Seconds spent generating it in this run; null when the existing data was reused. */
  generatedInSeconds: number | null;
}

/** Tables are created bare, filled, then given keys and indexes: much faster than checking every row on insert. */
const GENERATE = `
DROP TABLE IF EXISTS comment, post, account, author, category CASCADE;
CREATE TABLE category (id int NOT NULL, name text NOT NULL);
CREATE TABLE author (id int NOT NULL, name text NOT NULL, country text NOT NULL, reputation int NOT NULL);
CREATE TABLE account (id int NOT NULL, name text NOT NULL, joined_at timestamptz NOT NULL);
CREATE TABLE post (
  id int NOT NULL, author_id int NOT NULL, category_id int NOT NULL, title text NOT NULL, published_at timestamptz NOT NULL);
CREATE TABLE comment (
  id int NOT NULL, post_id int NOT NULL, account_id int NOT NULL, body text NOT NULL, created_at timestamptz NOT NULL);
INSERT INTO category SELECT i, 'category ' || i FROM generate_series(1, ${DATASET_ROWS.category}) i;
INSERT INTO author SELECT i, 'author ' || i, 'C' || lpad((i % 50)::text, 2, '0'), (i * 7919) % 10000
  FROM generate_series(1, ${DATASET_ROWS.author}) i;
INSERT INTO account SELECT i, 'account ' || i, timestamptz '2024-01-01 00:00Z' + ((i * 613) % 525600) * interval '1 minute'
  FROM generate_series(1, ${DATASET_ROWS.account}) i;
INSERT INTO post SELECT i, 1 + i % ${DATASET_ROWS.author}, 1 + (i * 13) % ${DATASET_ROWS.category}, 'post ' || i || ' ' || md5(i::text),
  timestamptz '2025-01-01 00:00Z' + ((i::bigint * 104729) % 525600) * interval '1 minute'
  FROM generate_series(1, ${DATASET_ROWS.post}) i;
INSERT INTO comment SELECT i, 1 + (i * 7) % ${DATASET_ROWS.post}, 1 + (i * 31) % ${DATASET_ROWS.account},
  'comment ' || i || ': ' || md5(i::text), timestamptz '2025-01-01 00:00Z' + i * interval '30 seconds'
  FROM generate_series(1, ${DATASET_ROWS.comment}) i;
ALTER TABLE category ADD PRIMARY KEY (id);
ALTER TABLE author ADD PRIMARY KEY (id);
ALTER TABLE account ADD PRIMARY KEY (id);
ALTER TABLE post ADD PRIMARY KEY (id),
  ADD FOREIGN KEY (author_id) REFERENCES author (id), ADD FOREIGN KEY (category_id) REFERENCES category (id);
ALTER TABLE comment ADD PRIMARY KEY (id),
  ADD FOREIGN KEY (post_id) REFERENCES post (id), ADD FOREIGN KEY (account_id) REFERENCES account (id);
CREATE INDEX author_country_reputation_idx ON author (country, reputation);
CREATE INDEX post_author_id_published_at_idx ON post (author_id, published_at);
CREATE INDEX post_category_id_idx ON post (category_id);
CREATE INDEX comment_post_id_idx ON comment (post_id);
CREATE INDEX comment_account_id_idx ON comment (account_id);
`;

/** `serverUrl` with its database path replaced by `name`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the database `name` on the server when it does not exist yet. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = await openDatabase({ url: databaseUrl(serverUrl, "postgres"), maxConnections: 1 });
  try {
    const { rows } = await admin.query(sql`SELECT 1 FROM pg_database WHERE datname = ${name}`);
    if (rows.length === 0) await admin.query(sql`CREATE DATABASE ${ident(name)}`);
  } finally {
    await admin.close();
  }
  return databaseUrl(serverUrl, name);
}

async function countRows(db: Database): Promise<Record<DatasetTable, number> | null> {
  const counts = {} as Record<DatasetTable, number>;
  for (const table of Object.keys(DATASET_ROWS) as DatasetTable[]) {
    const { rows } = await db.query<{ present: boolean }>(sql`SELECT to_regclass(${`public.${table}`}) IS NOT NULL AS present`);
    if (!rows[0]?.present) return null;
    const counted = await db.query<{ n: string }>(sql`SELECT count(*)::text AS n FROM ${ident("public", table)}`);
    counts[table] = Number(counted.rows[0]?.n ?? 0);
  }
  return counts;
}

const matches = (counts: Record<DatasetTable, number> | null) =>
  counts !== null && (Object.keys(DATASET_ROWS) as DatasetTable[]).every((t) => counts[t] === DATASET_ROWS[t]);

export async function ensureDataset(serverUrl: string, name = "bench_graphql"): Promise<Dataset> {
  const url = await ensureDatabase(serverUrl, name);
  const db = await openDatabase({ url, maxConnections: 1 });
  try {
    const existing = await countRows(db);
    if (matches(existing)) return { url, rows: existing as Record<DatasetTable, number>, generatedInSeconds: null };
    console.log(`generating ${name} (about 1,000,000 rows; once)`);
    const started = performance.now();
    await db.transaction((tx) => tx.exec(GENERATE));
    await db.exec("VACUUM ANALYZE");
    const rows = await countRows(db);
    if (!matches(rows)) throw new Error(`${name} has unexpected row counts after generation: ${JSON.stringify(rows)}`);
    return { url, rows: rows as Record<DatasetTable, number>, generatedInSeconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

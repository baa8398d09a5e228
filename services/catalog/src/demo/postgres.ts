/**
 * Loads the demo catalog (rows.ts, the rows the SQLite file gets) into PostgreSQL in the
 * converter's schema: timestamptz and boolean columns, secondary indexes built after the rows,
 * sequences moved past the ids, ANALYZE at the end.
 *
 * Everything runs in one transaction under an advisory lock keyed by the schema: a failure leaves
 * nothing behind, and loaders started at once fill the catalog once (the later ones find it there).
 */
import { type Database, ident, list, openDatabase, type Queryable, sql } from "@platform/core";
import { catalogIndexesDdl, catalogTablesDdl } from "../db/ddl.js";
import { TABLES, type TableName } from "../db/schema.js";
import { type BatchLayout, batches, insertText } from "./batches.js";
import { demoRows, type GenerateCounts, type GenerateOptions, type StreamCounts, validate } from "./rows.js";
import { columnPositions, DEMO_COLUMNS, tableCounts } from "./tables.js";
import { naive } from "./time.js";

export interface PostgresDemoOptions extends GenerateOptions {
  /** Schema for the catalog tables, created when missing; by default the connection's current schema. */
  schema?: string;
}

/** When the schema already has catalog tables: `refuse` if any holds rows (empty ones are filled), `skip` in any case. */
export type WhenPresent = "refuse" | "skip";

/** Writes the demo catalog into the database at `url`; refuses when its catalog tables already hold rows. */
export async function generateCatalogPostgres(url: string, options: PostgresDemoOptions): Promise<GenerateCounts> {
  const db = await openDatabase({ url, maxConnections: 1 });
  try {
    const counts = await loadDemoCatalog(db, options, "refuse");
    if (!counts) throw new Error("the demo catalog was not loaded");
    return counts;
  } finally {
    await db.close();
  }
}

/** The demo catalog into `db` (a pg pool or PGlite); undefined when `skip` found catalog tables. */
export async function loadDemoCatalog(
  db: Database,
  options: PostgresDemoOptions,
  whenPresent: WhenPresent,
): Promise<GenerateCounts | undefined> {
  validate(options);
  const started = performance.now();
  const say = options.onProgress ?? (() => {});
  const counts = await db.transaction(async (tx) => {
    const schema = await enterSchema(tx, options.schema);
    const present = await presentTables(tx);
    if (present.length > 0) {
      if (whenPresent === "skip") return undefined;
      const filled = await tablesWithRows(tx, present);
      if (filled.length > 0) {
        throw new Error(`refusing to load the demo catalog into schema "${schema}": ${filled.join(", ")} already hold rows`);
      }
    }
    say(`loading the demo catalog into schema "${schema}"`);
    await tx.exec(catalogTablesDdl("postgres"));
    // The batch statements are huge and all alike: plan them once, not once per execution.
    await tx.query(sql`SELECT set_config('plan_cache_mode', ${"force_generic_plan"}, true)`);
    const { stream, rows } = await insertRows(tx, options);
    say("creating indexes");
    await tx.query(sql`SELECT set_config('maintenance_work_mem', ${"256MB"}, true)`);
    await tx.exec(catalogIndexesDdl("postgres"));
    await moveSequences(tx);
    say("analyzing");
    for (const table of TABLES) await tx.query(sql`ANALYZE ${ident(table)}`);
    const size = await tx.query<{ bytes: number | string }>(
      sql`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN ${list(TABLES)}`,
    );
    const result: GenerateCounts = {
      ...stream,
      categories: rows.catalog_categories,
      syncStates: rows.converter_sync_state,
      bytes: Number(size.rows[0]?.bytes ?? 0),
      seconds: 0,
    };
    return result;
  });
  if (!counts) return undefined;
  counts.seconds = Math.round(performance.now() - started) / 1000;
  say(`done in ${counts.seconds} s`);
  return counts;
}

/** Takes the lock, then makes `schema` (created if missing) the transaction's search_path; returns the schema in use. */
async function enterSchema(tx: Queryable, schema: string | undefined): Promise<string> {
  await tx.query(
    sql`SELECT pg_advisory_xact_lock(hashtext(${"platform catalog demo"}), hashtext(coalesce(${schema ?? null}::text, current_schema()::text, '')))`,
  );
  if (schema !== undefined) {
    const exists = await tx.query(sql`SELECT 1 FROM pg_namespace WHERE nspname = ${schema}`);
    if (exists.rows.length === 0) await tx.query(sql`CREATE SCHEMA ${ident(schema)}`);
    await tx.query(sql`SELECT set_config('search_path', quote_ident(${schema}), true)`);
  }
  const current = await tx.query<{ name: string | null }>(sql`SELECT current_schema() AS name`);
  const name = current.rows[0]?.name;
  if (!name) throw new Error("the connection's search_path names no existing schema; give the demo a schema");
  return name;
}

async function presentTables(tx: Queryable): Promise<TableName[]> {
  const { rows } = await tx.query<{ name: TableName }>(
    sql`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname IN ${list(TABLES)}`,
  );
  return rows.map((row) => row.name);
}

async function tablesWithRows(tx: Queryable, tables: readonly TableName[]): Promise<TableName[]> {
  const filled: TableName[] = [];
  for (const table of tables) {
    const { rows } = await tx.query<{ any: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM ${ident(table)}) AS any`);
    if (rows[0]?.any) filled.push(table);
  }
  return filled;
}

/** PostgreSQL binds at most 65535 values a statement; timestamps go as UTC text (microseconds survive, a Date would cut them). */
const POSTGRES_LAYOUT: BatchLayout = {
  rowsPerBatch: (columns) => Math.floor(65_535 / columns),
  firstColumn: () => 0,
  converter(table) {
    const times = columnPositions(table, "timestamp");
    return (values) => {
      for (const i of times) {
        const value = values[i];
        if (value !== null && value !== undefined) values[i] = `${naive(value as number)}+00`;
      }
    };
  },
};

/**
 * Sends each batch as soon as it is full and builds the next one while the server inserts the
 * previous: one statement in flight, the stream never waits for more than one round trip.
 */
async function insertRows(tx: Queryable, options: GenerateOptions): Promise<{ stream: StreamCounts; rows: Record<TableName, number> }> {
  const rows = tableCounts();
  const texts = new Map<string, string>();
  const stream = batches(demoRows(options), POSTGRES_LAYOUT);
  let inFlight: Promise<unknown> | undefined;
  for (;;) {
    const next = stream.next();
    if (next.done) {
      await inFlight;
      return { stream: next.value, rows };
    }
    const { table, rows: batch } = next.value;
    const count = batch.length;
    const values = batch.flat();
    const key = `${table}:${count}`;
    let text = texts.get(key);
    if (text === undefined) {
      text = insertText(table, 0, count, "postgres");
      texts.set(key, text);
    }
    // Full batches repeat one statement: prepared once, each later batch only binds.
    const full = count === POSTGRES_LAYOUT.rowsPerBatch(DEMO_COLUMNS[table].length);
    const sent = tx.query({ text, values }, { prepare: full });
    // Awaited below or abandoned with the transaction; never an unhandled rejection.
    sent.catch(() => {});
    await inFlight;
    inFlight = sent;
    rows[table] += count;
  }
}

/** BIGSERIAL sequences continue after the explicit ids, as they would had the rows been numbered by them. */
async function moveSequences(tx: Queryable): Promise<void> {
  for (const table of TABLES) {
    if (DEMO_COLUMNS[table][0]?.[0] !== "id") continue;
    await tx.query(sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), max(id)) FROM ${ident(table)} HAVING max(id) IS NOT NULL`);
  }
}

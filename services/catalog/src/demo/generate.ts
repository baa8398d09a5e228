/**
 * Generates a demo catalog as a new SQLite file in the converter's schema, filled with realistic,
 * reproducible data (same seed and end date, same file; rows.ts). Used by `npm start` when no
 * catalog exists, by the benchmark and by tests; postgres.ts loads the same rows into PostgreSQL.
 *
 * The file is built as `<path>.tmp` and renamed at the end, so a crash never leaves something that
 * looks like a catalog. Bulk-load settings: no journal, no fsync, secondary indexes created after
 * the rows are in (sorting once is far cheaper than maintaining nine indexes row by row).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { catalogIndexesDdl, catalogTablesDdl } from "../db/ddl.js";
import type { TableName } from "../db/schema.js";
import { type BatchLayout, batches, insertText } from "./batches.js";
import { demoRows, type GenerateCounts, type GenerateOptions, validate } from "./rows.js";
import { columnPositions, tableCounts } from "./tables.js";
import { naive } from "./time.js";

export { DEFAULT_SEED, DEMO_SIZE, type GenerateCounts, type GenerateOptions } from "./rows.js";

export function generateCatalog(path: string, options: GenerateOptions): GenerateCounts {
  validate(options);
  if (existsSync(path)) throw new Error(`refusing to overwrite existing file ${path}`);
  const started = performance.now();
  const say = options.onProgress ?? (() => {});
  const tmp = `${path}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  // A leftover from an interrupted run is ours and incomplete.
  rmSync(tmp, { force: true });

  const db = new BetterSqlite3(tmp);
  try {
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("cache_size = -65536");
    db.exec(catalogTablesDdl("sqlite"));

    const rows = tableCounts();
    const counts = db.transaction(() => {
      const statements = new Map<string, BetterSqlite3.Statement>();
      const stream = batches(demoRows(options), sqliteLayout());
      for (;;) {
        const next = stream.next();
        if (next.done) return next.value;
        const { table, rows: batch } = next.value;
        const key = `${table}:${batch.length}`;
        let statement = statements.get(key);
        if (!statement) {
          statement = db.prepare(insertText(table, firstColumn(table), batch.length, "sqlite"));
          statements.set(key, statement);
        }
        // better-sqlite3 binds the row arrays in order, as one flat list.
        statement.run(...batch);
        rows[table] += batch.length;
      }
    })();

    say("creating indexes");
    // Measured on 5M snapshots: a small page cache lets SQLite's sorter spill sorted runs and merge
    // them on a helper thread, several times faster than one huge in-memory sort.
    db.pragma("cache_size = -2000");
    db.pragma("threads = 2");
    db.exec(catalogIndexesDdl("sqlite"));
    say("analyzing");
    // Sampled statistics: enough for the planner, seconds instead of a minute on large catalogs.
    db.pragma("analysis_limit = 2000");
    db.exec("ANALYZE");
    db.pragma("journal_mode = DELETE");
    const result: GenerateCounts = {
      ...counts,
      categories: rows.catalog_categories,
      syncStates: rows.converter_sync_state,
      bytes: 0,
      seconds: 0,
    };
    db.close();
    renameSync(tmp, path);
    result.bytes = statSync(path).size;
    result.seconds = Math.round(performance.now() - started) / 1000;
    say(`done in ${result.seconds} s`);
    return result;
  } catch (error) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * SQLite numbers these tables' rows itself (INTEGER PRIMARY KEY AUTOINCREMENT) exactly as the stream
 * does, in insertion order from 1; binding the id anyway costs a rowid lookup per row, about a tenth
 * of the snapshot load.
 */
const NUMBERED_BY_SQLITE: ReadonlySet<TableName> = new Set(["catalog_product_snapshots", "catalog_product_assets"]);

const firstColumn = (table: TableName): number => (NUMBERED_BY_SQLITE.has(table) ? 1 : 0);

/** SQLite's storage forms (time.ts); 64 rows a statement measured best, longer ones cost more to bind than they save. */
function sqliteLayout(): BatchLayout {
  return {
    rowsPerBatch: () => 64,
    firstColumn,
    converter(table) {
      const times = columnPositions(table, "timestamp");
      const flags = columnPositions(table, "boolean");
      const numbered = firstColumn(table) === 1;
      let rows = 0;
      return (values) => {
        for (const i of times) {
          const value = values[i];
          if (value !== null && value !== undefined) values[i] = naive(value as number);
        }
        for (const i of flags) {
          const value = values[i];
          if (value !== null && value !== undefined) values[i] = value ? 1 : 0;
        }
        if (numbered && values[0] !== ++rows) throw new Error(`${table} ids are not in insertion order`);
      };
    },
  };
}

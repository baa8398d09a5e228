/**
 * Groups the demo row stream into multi-row INSERT statements, one open batch per table: binding
 * many rows per statement costs far less per row than a statement per row, on SQLite (fewer
 * native calls and statement resets) as on PostgreSQL (fewer round trips).
 */
import { compile, type Dialect, ident, join, list, sql } from "@platform/core";
import type { TableName } from "../db/schema.js";
import { DEMO_COLUMNS, type DemoRow } from "./tables.js";

/** Rows of one table, each the values to bind (from the layout's first column on). */
export interface Batch {
  table: TableName;
  rows: unknown[][];
}

export interface BatchLayout {
  /** Rows per statement for a table binding `columns` values per row. */
  rowsPerBatch(columns: number): number;
  /** The first column to bind: 1 leaves the id to the database. */
  firstColumn(table: TableName): number;
  /** What turns a row of `table` into the values the driver binds, in place. */
  converter(table: TableName): (values: unknown[]) => void;
}

/** The stream's rows as full batches, then each table's last partial batch; returns what the stream returns. */
export function* batches<R>(stream: Generator<DemoRow, R>, layout: BatchLayout): Generator<Batch, R> {
  interface Open {
    batch: Batch;
    first: number;
    limit: number;
    convert: (values: unknown[]) => void;
  }
  const open = new Map<TableName, Open>();
  for (;;) {
    const next = stream.next();
    if (next.done) {
      for (const { batch } of open.values()) if (batch.rows.length > 0) yield batch;
      return next.value;
    }
    const row = next.value;
    let entry = open.get(row.table);
    if (!entry) {
      // Tables are first written in the stream's order (SQLite's sqlite_sequence rows follow it).
      for (const other of open.values()) {
        if (other.batch.rows.length === 0) continue;
        yield other.batch;
        other.batch = { table: other.batch.table, rows: [] };
      }
      const first = layout.firstColumn(row.table);
      entry = {
        batch: { table: row.table, rows: [] },
        first,
        limit: layout.rowsPerBatch(DEMO_COLUMNS[row.table].length - first),
        convert: layout.converter(row.table),
      };
      open.set(row.table, entry);
    }
    const values = row.values;
    entry.convert(values);
    for (let i = 0; i < entry.first; i++) values.shift();
    const { batch } = entry;
    if (batch.rows.push(values) === entry.limit) {
      yield batch;
      entry.batch = { table: row.table, rows: [] };
    }
  }
}

/** INSERT INTO table (its demo columns from `first`) VALUES (...), ... for `rows` rows, in `dialect`'s placeholders. */
export function insertText(table: TableName, first: number, rows: number, dialect: Dialect): string {
  const columns = DEMO_COLUMNS[table].slice(first);
  const names = join(columns.map(([name]) => sql`${ident(name)}`));
  const row = list(columns.map(() => null));
  // Joined flat, row by row: nesting tens of thousands of placeholders in one template overflows the builder's stack.
  const head = sql`INSERT INTO ${ident(table)} (${names}) VALUES ${row}`;
  return compile(join([head, ...Array.from({ length: rows - 1 }, () => row)]), dialect).text;
}

/**
 * The change signal of live queries: instead of re-running every poller's statement every refetch
 * interval whether or not anything changed (as Hasura does: hasura/graphql-engine#9963, #5380), a
 * poller polls when a table its statement reads was written, and not otherwise.
 *
 * Each tracked plain table gets a statement-level trigger (`hdb_live_query_change`, AFTER INSERT,
 * UPDATE, DELETE or TRUNCATE, FOR EACH STATEMENT) that NOTIFYs `hdb_table_changed` with the
 * table's `schema.name`: one notification per writing statement, not per row, and PostgreSQL
 * folds a transaction's equal notifications into one, sent at commit. Each engine instance
 * LISTENs on one connection of its own.
 *
 * A poller relies on the signal only while it covers everything the statement reads: the signal
 * is on, the listening connection is up, every table read carries the trigger, and the statement
 * reads nothing the engine cannot observe (a view, a function). Otherwise it polls every refetch
 * interval, as before. When the listening connection is lost, every poller falls back to the
 * interval until it is back, and then polls at once (notifications sent meanwhile are lost).
 */
import type { Database } from "@platform/core";
import type { Dependencies } from "../compiler/context.js";
import type { TableModel } from "../model/types.js";

export const CHANGE_CHANNEL = "hdb_table_changed";
const TRIGGER = "hdb_live_query_change";
const FUNCTION = "hdb_catalog.hdb_live_query_notify";

/** Who is told of changes: the pollers of the engine now serving. */
export interface ChangeSink {
  /** A statement wrote `table` (`schema.name`). */
  changed(table: string): void;
  /** The listening connection is lost (false) or back (true). */
  listening(up: boolean): void;
}

interface Logger {
  warn(details: object, message: string): void;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export class ChangeSignal {
  private readonly sinks = new Set<ChangeSink>();
  private instrumented = new Set<string>();
  private up = false;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Database,
    private readonly logger?: Logger,
  ) {}

  /** Starts listening (once); a failure leaves the signal down, so pollers poll on the interval. */
  async start(): Promise<void> {
    if (this.stopListening) return;
    try {
      this.stopListening = await this.db.listen(CHANGE_CHANNEL, {
        notify: (table) => {
          for (const sink of this.sinks) sink.changed(table);
        },
        state: (up) => {
          this.up = up;
          for (const sink of this.sinks) sink.listening(up);
        },
      });
      this.up = true;
    } catch (error) {
      this.logger?.warn({ err: error }, "live queries cannot listen for changes: they poll every refetch interval");
    }
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    this.up = false;
    await stop?.();
  }

  attach(sink: ChangeSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Whether changes to everything `reads` names are announced now. */
  covers(reads: Dependencies): boolean {
    if (!this.up || reads.opaque.size > 0) return false;
    for (const table of reads.tables) if (!this.instrumented.has(table)) return false;
    return true;
  }

  /**
   * Gives every tracked plain table the trigger (a table that already has it is left alone, so
   * instances reloading metadata take no lock); with `prune`, removes it from tables no longer
   * tracked (done by the instance whose metadata API made the change: others may still be
   * reading older metadata). A table that cannot take it (no privilege) is polled on the interval.
   */
  async instrument(tables: Iterable<TableModel>, prune: boolean): Promise<void> {
    const wanted = new Map<string, TableModel>();
    for (const table of tables) if (table.kind === "table") wanted.set(`${table.schema}.${table.name}`, table);
    const instrumented = new Set<string>();
    try {
      await this.ensureFunction();
      const { rows } = await this.db.query<{ schema: string; name: string }>({
        text: `SELECT n.nspname AS schema, c.relname AS name FROM pg_catalog.pg_trigger t
          JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE t.tgname = $1`,
        values: [TRIGGER],
      });
      const present = new Set(rows.map((r) => `${r.schema}.${r.name}`));
      for (const [key, table] of wanted) {
        if (present.has(key) || (await this.createTrigger(table))) instrumented.add(key);
      }
      if (prune)
        for (const row of rows)
          if (!wanted.has(`${row.schema}.${row.name}`))
            await this.db
              .exec(`DROP TRIGGER IF EXISTS ${TRIGGER} ON ${quote(row.schema)}.${quote(row.name)}`)
              .catch((error: unknown) =>
                this.logger?.warn({ err: error, table: `${row.schema}.${row.name}` }, "a live query change trigger could not be removed"),
              );
    } catch (error) {
      this.logger?.warn({ err: error }, "live queries' change triggers could not be installed: they poll every refetch interval");
    }
    this.instrumented = instrumented;
  }

  private async ensureFunction(): Promise<void> {
    const { rows } = await this.db.query<{ present: boolean }>({
      text: "SELECT to_regprocedure($1) IS NOT NULL AS present",
      values: [`${FUNCTION}()`],
    });
    if (rows[0]?.present) return;
    await this.db
      .exec(
        `CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
          RETURN NULL;
        END $$`,
      )
      // Another instance may have made it at the same moment; if it is still missing, the
      // triggers' creation fails and instrument() logs why.
      .catch((error: unknown) => this.logger?.warn({ err: error }, "the live query change function could not be created"));
  }

  private async createTrigger(table: TableModel): Promise<boolean> {
    const target = `${quote(table.schema)}.${quote(table.name)}`;
    try {
      await this.db.exec(
        `CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${target} FOR EACH STATEMENT EXECUTE FUNCTION ${FUNCTION}()`,
      );
      return true;
    } catch (error) {
      // Made by another instance meanwhile (duplicate_object): it is there all the same.
      if ((error as { code?: unknown }).code === "42710") return true;
      this.logger?.warn(
        { err: error, table: `${table.schema}.${table.name}` },
        "a live query change trigger could not be created: the table is polled",
      );
      return false;
    }
  }
}

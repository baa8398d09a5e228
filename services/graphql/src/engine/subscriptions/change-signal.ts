/**
 * The change signal of live queries: instead of re-running every poller's statement every refetch
 * interval whether or not anything changed (as Hasura does: hasura/graphql-engine#9963, #5380), a
 * poller polls when a table its statement reads was written, and not otherwise.
 *
 * Each tracked plain table gets a statement-level trigger (`hdb_live_query_change`, AFTER INSERT,
 * UPDATE, DELETE or TRUNCATE, FOR EACH STATEMENT) that NOTIFYs `hdb_table_changed` with the
 * table's `schema.name`: one notification per writing statement, not per row, and PostgreSQL
 * folds a transaction's equal notifications into one, sent at commit. Each engine instance
 * LISTENs on one connection of its own (to the listen URL when one is set: a transaction-mode
 * pooler does not carry LISTEN), and trusts it once a probe NOTIFY sent through the pool, as the
 * triggers' are, has reached it.
 *
 * A poller relies on the signal only while it covers everything the statement reads: the signal
 * is on, the listening connection is up and its probe arrived, every table read carries the
 * trigger, the statement reads nothing the engine cannot observe (a view, a function), and none of
 * its cohorts compares a date or time with the clock (poller.ts). Otherwise it polls every refetch
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

/** How long a probe sent through the pool may take to reach the listening connection. */
const PROBE_TIMEOUT_MS = 3000;
/** Delays between probes while they do not arrive: growing to a minute. */
const REPROBE_DELAYS_MS = [5000, 15_000, 30_000, 60_000];
/** Marks a probe's payload (a table's `schema.name` never starts with it). */
const PROBE = "\u0001probe:";

export class ChangeSignal {
  private readonly sinks = new Set<ChangeSink>();
  private instrumented = new Set<string>();
  /** Listening, and a probe sent since the connection was made has arrived. */
  private up = false;
  private stopListening: (() => Promise<void>) | undefined;
  /** The probe awaited now: its payload, and what to call when it arrives. */
  private probe: { payload: string; arrived(): void } | undefined;
  private reprobe: NodeJS.Timeout | undefined;
  private probeFailures = 0;
  private probes = 0;
  /** An attempt to listen again failed since the connection was lost (logged once). */
  private reconnectFailed = false;

  constructor(
    private readonly db: Database,
    private readonly logger?: Logger,
  ) {}

  /**
   * Starts listening (once), then checks that a notification sent through the pool, as the
   * triggers' are, reaches the listening connection; until one has, the signal is down and pollers
   * poll every refetch interval. A failure to listen leaves it down for good (logged).
   */
  async start(): Promise<void> {
    if (this.stopListening) return;
    try {
      this.stopListening = await this.db.listen(CHANGE_CHANNEL, {
        notify: (payload) => {
          if (payload.startsWith(PROBE)) {
            if (payload === this.probe?.payload) this.probe.arrived();
            return;
          }
          for (const sink of this.sinks) sink.changed(payload);
        },
        state: (listening) => {
          if (listening) {
            this.reconnectFailed = false;
            void this.verify();
          } else {
            this.probe = undefined;
            this.setUp(false);
          }
        },
        // Logged once per loss: the attempts go on with a growing delay, and pollers poll meanwhile.
        failed: (error) => {
          if (this.reconnectFailed) return;
          this.reconnectFailed = true;
          this.logger?.warn({ err: error }, "live queries cannot listen for changes again yet: they poll every refetch interval");
        },
      });
    } catch (error) {
      this.logger?.warn({ err: error }, "live queries cannot listen for changes: they poll every refetch interval");
      return;
    }
    await this.verify();
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    clearTimeout(this.reprobe);
    this.probe = undefined;
    this.up = false;
    await stop?.();
  }

  /**
   * Sends a probe notification through the pool and waits for it on the listening connection. It
   * does not arrive when statements go through a transaction-mode pooler that the listening
   * connection does not share a server session with, or to another database: then the signal
   * stays down (logged), and the probe is sent again later.
   */
  private async verify(): Promise<void> {
    clearTimeout(this.reprobe);
    if (!this.stopListening) return;
    this.probes += 1;
    const payload = `${PROBE}${process.pid}:${this.probes}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.probe = { payload, arrived: () => resolve(true) };
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    let sent = true;
    try {
      await this.db.query({ text: "SELECT pg_notify($1, $2)", values: [CHANGE_CHANNEL, payload] });
    } catch (error) {
      sent = false;
      this.logger?.warn({ err: error }, "the live query change signal's probe could not be sent");
    }
    const ok = sent && (await arrived);
    clearTimeout(timer);
    if (this.probe?.payload !== payload || !this.stopListening) return; // stopped, or a newer probe was sent
    this.probe = undefined;
    if (ok) {
      this.probeFailures = 0;
      this.setUp(true);
      return;
    }
    if (this.probeFailures === 0)
      this.logger?.warn(
        { waitedMs: PROBE_TIMEOUT_MS },
        "notifications sent through the database URL do not reach the listening connection (a transaction-mode pooler, or a listen URL naming another database): live queries poll every refetch interval",
      );
    const delay = REPROBE_DELAYS_MS[Math.min(this.probeFailures, REPROBE_DELAYS_MS.length - 1)] as number;
    this.probeFailures += 1;
    this.setUp(false);
    this.reprobe = setTimeout(() => void this.verify(), delay);
    this.reprobe.unref();
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    for (const sink of this.sinks) sink.listening(up);
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
      // In one round trip: the tables carrying the trigger, and the plain tables with inheritance
      // children (reading one reads theirs, whose writes its trigger does not see).
      const { rows: found } = await this.db.query<{ schema: string; name: string; parent: boolean }>({
        text: `SELECT n.nspname AS schema, c.relname AS name, false AS parent FROM pg_catalog.pg_trigger t
            JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE t.tgname = $1
          UNION ALL
          SELECT n.nspname, c.relname, true FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relhassubclass AND c.relkind = 'r'`,
        values: [TRIGGER],
      });
      const rows = found.filter((r) => !r.parent);
      const present = new Set(rows.map((r) => `${r.schema}.${r.name}`));
      const inherited = new Set(found.filter((r) => r.parent).map((r) => `${r.schema}.${r.name}`));
      for (const [key, table] of wanted) {
        if (inherited.has(key)) {
          this.logger?.warn(
            { table: key },
            "a table with inheritance children is polled every refetch interval: writes to its children are not signalled",
          );
          continue;
        }
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

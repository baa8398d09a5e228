import type { Compiled, Sql } from "../sql.js";

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  prepare?: boolean;
  /** The prepared statement's name when the caller already has one (a cached plan); implies `prepare`. */
  name?: string;
  /**
   * Cancels the statement: once aborted, a statement not yet started is not run, and on a server
   * the running one is cancelled in PostgreSQL; the call then rejects with the signal's reason.
   * PGlite cannot interrupt a statement it is running (see pglite.ts).
   */
  signal?: AbortSignal | undefined;
  /**
   * The most bytes the statement's answer may take as it arrives from a server: past it the
   * connection is closed at once (which ends the statement in PostgreSQL) and the call rejects
   * with a ResponseTooLargeError, so no answer larger than this is ever held whole in this
   * process. PGlite builds its answer in this process: there it is checked once complete.
   */
  maxResponseBytes?: number | undefined;
}

export interface TransactionOptions {
  /** As QueryOptions.signal, for every statement of the transaction; an aborted transaction rolls back. */
  signal?: AbortSignal | undefined;
  /**
   * `repeatable read`: every statement of the transaction reads one snapshot, taken at its first
   * statement (https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ).
   * Read committed (PostgreSQL's default) when absent.
   */
  isolation?: "repeatable read" | undefined;
  /** The transaction may not write (`READ ONLY`). */
  readOnly?: boolean | undefined;
}

/** What a statement answered past QueryOptions.maxResponseBytes. */
export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the statement's answer is larger than ${maxBytes} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

/** Something that runs statements: the database itself or one transaction on it. */
export interface Queryable {
  /**
   * Runs one statement. With `prepare`, a server keeps it as a named prepared statement (named
   * after a hash of its text), so repeats skip parsing and planning; PGlite ignores it. A
   * `Compiled` statement (text and values rendered once, for PostgreSQL) is run as it is.
   */
  query<T = Record<string, unknown>>(statement: Sql | Compiled, options?: QueryOptions): Promise<QueryResult<T>>;
  /** Runs raw SQL text with several statements and no parameters (migrations, fixtures). */
  exec(script: string): Promise<void>;
}

/** What a LISTEN hands on: each notification's payload, and the listening connection's state. */
export interface ListenHandlers {
  notify(payload: string): void;
  /**
   * The listening connection was lost (false) or listens again (true). Notifications sent while it
   * was lost are lost with it: a listener that must not miss a change treats `true` as one.
   */
  state?(listening: boolean): void;
  /** An attempt to listen again after a loss failed (the next one follows with a growing delay). */
  failed?(error: unknown): void;
}

export interface Database extends Queryable {
  /** `postgres` for a server reached through a pg pool, `pglite` for the embedded engine. */
  readonly kind: "postgres" | "pglite";
  /**
   * The driver object underneath (a `pg.Pool` or a `PGlite`), for the few callers that need a
   * protocol feature the interface does not carry (run_sql's multi-statement results).
   */
  readonly driver: unknown;
  /** Runs `work` in one transaction on one connection; commits on success, rolls back on throw. */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * LISTENs on `channel` on the Database's one listening connection (the pool's connections stay
   * for statements; every channel shares it), connected again with a growing delay whenever it is
   * lost; resolves once listening, to the function that stops listening (the connection is
   * closed when no channel is listened to any more).
   */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A `postgres://` or `postgresql://` URL; when absent the embedded PGlite engine is used. */
  url?: string | undefined;
  /** Where PGlite keeps its files; in memory when absent. */
  dataDir?: string | undefined;
  /** pg pool size. */
  maxConnections?: number | undefined;
  /** The `application_name` the server shows for this pool's connections (pg_stat_activity); a URL's own wins. */
  applicationName?: string | undefined;
  /**
   * Seconds after which a pooled connection is closed once idle and replaced (0: never), so what
   * the server keeps per session (prepared statements, caches) does not grow without end.
   */
  connectionLifetimeSeconds?: number | undefined;
  /**
   * The URL `listen` connects to (default: `url`). LISTEN needs a session of its own, which a
   * transaction-mode pooler (PgBouncer's `pool_mode = transaction`, Supabase's pooler on port
   * 6543) does not give: name the database directly here. Ignored by PGlite.
   */
  listenUrl?: string | undefined;
}

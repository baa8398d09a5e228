import { createHash } from "node:crypto";
import type { Socket } from "node:net";
import pg from "pg";
import { type Compiled, compile, Sql } from "../sql.js";
import { type Checkout, cancellable, connectCancellable } from "./pg-cancel.js";
import {
  type Database,
  type DatabaseOptions,
  type ListenHandlers,
  type Queryable,
  type QueryOptions,
  type QueryResult,
  ResponseTooLargeError,
  type TransactionOptions,
} from "./types.js";
import { textParsers } from "./types-parsing.js";

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    const parser = textParsers[oid];
    if (parser && format !== "binary") return parser;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** A prepared statement's name: a hash of its text, so equal statements share one server-side plan. */
export function statementName(text: string): string {
  return `p_${createHash("sha1").update(text).digest("base64url")}`;
}

/**
 * How often (ms) PostgreSQL checks, while running a statement, that the engine is still connected
 * (PostgreSQL 14+, https://www.postgresql.org/docs/current/runtime-config-connection.html): if this
 * process dies or a connection is dropped mid-statement, the server stops the statement instead of
 * running it to the end.
 */
export const CONNECTION_CHECK_INTERVAL_MS = 500;

type Statement = Sql | Compiled;

function queryConfig(statement: Statement, options: QueryOptions | undefined) {
  const { text, values } = statement instanceof Sql ? compile(statement, "postgres") : statement;
  const name = options?.name ?? (options?.prepare ? statementName(text) : undefined);
  return { text, values, types, ...(name ? { name } : {}) };
}

/**
 * client.query in its callback form. With its promise form (no callback), V8 ends up promoting
 * every statement's result rows to the old generation under load: on the GraphQL bench, ~2.7 MB
 * per scavenge instead of ~0.02 MB, a third of the young generation surviving each scavenge, which
 * cost the service ~0.05 ms of CPU per request (scavenging, then major GCs) and ~90 MB of
 * resident memory. pool.query, which uses the client's callback form, does not have it; neither
 * does awaiting this promise, nor releasing the client later.
 */
async function send(client: pg.Pool | pg.PoolClient, config: pg.QueryConfig): Promise<pg.QueryResult> {
  try {
    return await new Promise<pg.QueryResult>((resolve, reject) => {
      client.query(config, (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
    });
  } catch (error) {
    // As pg's promise form does: the stack leads back to the statement's caller, not to the socket.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  }
}

async function run<T>(client: pg.Pool | pg.PoolClient, statement: Statement, options?: QueryOptions): Promise<QueryResult<T>> {
  const result = await send(client, queryConfig(statement, options));
  return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
}

/**
 * Runs a statement on a checked-out connection, counting the bytes its socket receives meanwhile:
 * past `maxBytes` the connection is closed at once, so pg's parser never holds more than that
 * (and one chunk) of the answer, and the server, its client gone, ends the statement
 * (client_connection_check_interval). The connection is then not reused.
 */
async function bounded<T>(checkout: Checkout, maxBytes: number | undefined, work: () => Promise<T>): Promise<T> {
  const stream = (checkout.client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  if (maxBytes === undefined || !stream) return work();
  let received = 0;
  let exceeded = false;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= maxBytes || exceeded) return;
    exceeded = true;
    checkout.broken = true;
    // pg's end() with a statement running destroys the socket at once; as its own end, it is no
    // 'error' event of the client (the statement's call rejects, and is answered below).
    checkout.client.end().catch(() => {
      // The socket is already gone: nothing to report.
    });
  };
  stream.on("data", onData);
  try {
    return await work();
  } catch (error) {
    if (exceeded) throw new ResponseTooLargeError(maxBytes);
    throw error;
  } finally {
    stream.off("data", onData);
  }
}

/** Statements on the pool, each on whichever connection is free; with a signal or a size bound, on one checked out for it. */
function poolQueryable(pool: pg.Pool): Queryable {
  return {
    async query<T>(statement: Statement, options?: QueryOptions): Promise<QueryResult<T>> {
      const signal = options?.signal;
      if (!signal && options?.maxResponseBytes === undefined) return run<T>(pool, statement, options);
      const checkout: Checkout = { client: await connectCancellable(pool, signal), broken: false };
      try {
        return await cancellable(checkout, signal, () =>
          bounded(checkout, options?.maxResponseBytes, () => run<T>(checkout.client, statement, options)),
        );
      } finally {
        checkout.client.release(checkout.broken);
      }
    },
    async exec(script: string): Promise<void> {
      await pool.query(script);
    },
  };
}

/** Statements of one transaction; `signal` (the transaction's) cancels whichever one is running, as does the statement's own. */
function transactionQueryable(checkout: Checkout, signal: AbortSignal | undefined): Queryable {
  return {
    query<T>(statement: Statement, options?: QueryOptions): Promise<QueryResult<T>> {
      return cancellable(
        checkout,
        signal,
        () => bounded(checkout, options?.maxResponseBytes, () => run<T>(checkout.client, statement, options)),
        options?.signal,
      );
    },
    async exec(script: string): Promise<void> {
      await cancellable(checkout, signal, () => send(checkout.client, { text: script }));
    },
  };
}

/** `BEGIN` with the transaction's isolation level and access mode. */
function beginStatement(options: TransactionOptions | undefined): string {
  const isolation = options?.isolation === "repeatable read" ? " ISOLATION LEVEL REPEATABLE READ" : "";
  return `BEGIN${isolation}${options?.readOnly ? " READ ONLY" : ""}`;
}

export function openPostgres(url: string, options: Omit<DatabaseOptions, "url" | "dataDir"> = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    maxLifetimeSeconds: options.connectionLifetimeSeconds ?? 0,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    types,
    // Before the connection's first statement. A server before 14 does not know the setting
    // (42704 undefined_object): it then runs without the check, which is fine. Any other failure
    // fails the connection, and the caller of connect() sees it.
    onConnect: async (client) => {
      await client.query(`SET client_connection_check_interval = ${CONNECTION_CHECK_INTERVAL_MS}`).catch((error: unknown) => {
        if ((error as { code?: unknown } | null)?.code !== "42704") throw error;
      });
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const listener = new SharedListener(options.listenUrl ?? url, options.applicationName);
  return {
    kind: "postgres",
    driver: pool,
    ...poolQueryable(pool),
    async transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const signal = options?.signal;
      const checkout: Checkout = { client: await connectCancellable(pool, signal), broken: false };
      const { client } = checkout;
      try {
        await send(client, { text: beginStatement(options) });
        const result = await work(transactionQueryable(checkout, signal));
        // A request cancelled after its last statement still rolls back.
        signal?.throwIfAborted();
        await send(client, { text: "COMMIT" });
        return result;
      } catch (error) {
        if (!checkout.broken)
          await send(client, { text: "ROLLBACK" }).catch(() => {
            // The transaction's own error is the one rethrown below; a ROLLBACK that fails means
            // the connection cannot be trusted, so it is closed instead of going back to the pool.
            checkout.broken = true;
          });
        throw error;
      } finally {
        client.release(checkout.broken);
      }
    },
    listen: (channel, handlers) => listener.listen(channel, handlers),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/** Delays between attempts to listen again: growing to 5 s. */
const RELISTEN_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

/**
 * Every LISTEN of one Database on one client of its own, outside the pool (what one instance's
 * live queries and event triggers wait on costs the server one connection): connected when the
 * first channel is listened to, closed when the last one is let go, and connected again whenever
 * it is lost (each channel listened to again, each listener told it was lost and is back).
 * Changes to it run one after another.
 */
class SharedListener {
  private client: pg.Client | undefined;
  private readonly channels = new Map<string, Set<ListenHandlers>>();
  private work: Promise<unknown> = Promise.resolve();
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly applicationName: string | undefined,
  ) {}

  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    return this.serial(async () => {
      const client = this.client ?? (await this.connect());
      let listeners = this.channels.get(channel);
      if (!listeners) {
        await client.query(`LISTEN ${quoteIdent(channel)}`);
        listeners = new Set();
        this.channels.set(channel, listeners);
      }
      listeners.add(handlers);
      return () => this.unlisten(channel, handlers);
    });
  }

  /** Closes the client (the Database is closing). */
  close(): Promise<void> {
    return this.serial(async () => {
      this.channels.clear();
      await this.disconnect();
    });
  }

  /** Runs `step` once the steps before it are over. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.work.then(step, step);
    // The chain goes on whatever a step's outcome; its caller sees that outcome.
    this.work = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private unlisten(channel: string, handlers: ListenHandlers): Promise<void> {
    return this.serial(async () => {
      const listeners = this.channels.get(channel);
      if (!listeners?.delete(handlers) || listeners.size > 0) return;
      this.channels.delete(channel);
      if (this.channels.size === 0) return this.disconnect();
      // A connection lost meanwhile listens to nothing: there is nothing to undo on it.
      await this.client?.query(`UNLISTEN ${quoteIdent(channel)}`).catch(() => undefined);
    });
  }

  private async disconnect(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const last = this.client;
    this.client = undefined;
    // Letting go: a client whose server is already gone closes with an error nobody can act on.
    await last?.end().catch(() => undefined);
  }

  private async connect(): Promise<pg.Client> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const applicationName = this.applicationName;
    const next = new pg.Client({ connectionString: this.url, types, ...(applicationName ? { application_name: applicationName } : {}) });
    next.on("notification", (message) => {
      for (const handlers of this.channels.get(message.channel) ?? []) handlers.notify(message.payload ?? "");
    });
    // A lost connection: its listeners are told, then it is connected again.
    const lost = () => {
      if (this.client !== next) return;
      this.client = undefined;
      for (const handlers of this.everyListener()) handlers.state?.(false);
      this.retry();
    };
    next.on("error", lost);
    next.on("end", lost);
    try {
      await next.connect();
      for (const channel of this.channels.keys()) await next.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      next.removeAllListeners("end");
      // Closing a client that failed to connect or listen: the failure rethrown is the one to see.
      await next.end().catch(() => undefined);
      throw error;
    }
    this.client = next;
    this.attempts = 0;
    return next;
  }

  private retry(): void {
    if (this.channels.size === 0) return;
    const delay = RELISTEN_DELAYS_MS[Math.min(this.attempts, RELISTEN_DELAYS_MS.length - 1)] as number;
    this.attempts += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.serial(async () => {
        if (this.client || this.channels.size === 0) return;
        await this.connect();
        for (const handlers of this.everyListener()) handlers.state?.(true);
      }).catch((error: unknown) => {
        for (const handlers of this.everyListener()) handlers.failed?.(error);
        this.retry();
      });
    }, delay);
    this.timer.unref();
  }

  private *everyListener(): Iterable<ListenHandlers> {
    for (const listeners of this.channels.values()) yield* listeners;
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

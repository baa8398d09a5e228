/**
 * A database that cannot be reached, opened or read as a catalog. The reason is our own
 * short phrase, safe to show to clients; the driver's text stays in the logs (as `cause`).
 */
import type { Logger } from "@platform/core";
import type { CatalogSource } from "./source.js";

export class CatalogUnavailable extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`catalog unavailable: ${reason}`, options);
    this.name = "CatalogUnavailable";
  }
}

const MISSING_TABLES = "catalog tables are missing";
/** What a user whose database is empty can do (npm start does it on its own). */
const FILL_HINT =
  "the converter has not written this database yet; for demo data run: npm run demo -w services/catalog -- --out <the ENDPOINT_CATALOG_DB URL>";

const SQLITE_UNAVAILABLE: Record<string, string> = {
  SQLITE_CANTOPEN: "database file cannot be opened",
  SQLITE_NOTADB: "file is not a catalog database",
  SQLITE_CORRUPT: "database file is damaged",
  SQLITE_BUSY: "database is busy",
  SQLITE_LOCKED: "database is busy",
  SQLITE_IOERR: "database file cannot be read",
  SQLITE_READONLY: "database file cannot be read",
  SQLITE_PERM: "database file cannot be read",
  SQLITE_AUTH: "database file cannot be read",
};

/** Returns the error to throw: CatalogUnavailable for outages and schema mismatches, the error itself otherwise. */
export function classify(error: unknown): unknown {
  if (error instanceof CatalogUnavailable) return error;
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  const sqliteBase = code.startsWith("SQLITE_") ? code.replace(/^(SQLITE_[A-Z]+?)(_.*)?$/, "$1") : "";
  if (sqliteBase && SQLITE_UNAVAILABLE[sqliteBase]) return new CatalogUnavailable(SQLITE_UNAVAILABLE[sqliteBase], { cause: error });
  if (code === "SQLITE_ERROR" && /no such (table|column)/.test(message)) {
    return new CatalogUnavailable(MISSING_TABLES, { cause: error });
  }
  if (code === "42P01" || code === "42703") return new CatalogUnavailable(MISSING_TABLES, { cause: error });
  if (/^(08|28|3D|57P|53)/.test(code) || /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|EAI_AGAIN)$/.test(code)) {
    return new CatalogUnavailable("database connection failed", { cause: error });
  }
  if (/Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(message)) {
    return new CatalogUnavailable("database connection failed", { cause: error });
  }
  return error;
}

/** The driver's own words for a failure, kept for the logs only. */
function driverMessage(error: CatalogUnavailable): string | undefined {
  const cause = error.cause as { message?: unknown } | undefined;
  return typeof cause?.message === "string" ? cause.message : undefined;
}

/**
 * The same source, logging its availability as it changes: one warning when the catalog becomes
 * unavailable (or unavailable for another reason), one info line when it is back. Probes and
 * requests in between add nothing, so an outage costs two log lines, not one per request.
 *
 * Any read can find the catalog unavailable; only changeToken(), which reads the products table
 * and is polled by the refresh loop, can find it back: a read of a table that still works must not
 * announce a recovery while the products are gone.
 */
export function watchAvailability(source: CatalogSource, log: Pick<Logger, "info" | "warn">): CatalogSource {
  let reason: string | undefined;
  let since = 0;
  let calls = 0;
  // A call that started before the last change of state reports an old state: it must not flip it back.
  let changedAt = 0;
  const observe = <T>(work: () => Promise<T>, pulse = false): Promise<T> => {
    const call = ++calls;
    return work().then(
      (value) => {
        if (pulse && reason !== undefined && call > changedAt) {
          log.info({ unavailableSeconds: Math.round((Date.now() - since) / 100) / 10 }, "catalog available again");
          reason = undefined;
          changedAt = calls;
        }
        return value;
      },
      (error: unknown) => {
        if (error instanceof CatalogUnavailable && error.reason !== reason && call > changedAt) {
          const hint = error.reason === MISSING_TABLES ? { hint: FILL_HINT } : {};
          log.warn({ reason: error.reason, cause: driverMessage(error), ...hint }, `catalog unavailable: ${error.reason}`);
          if (reason === undefined) since = Date.now();
          reason = error.reason;
          changedAt = calls;
        }
        throw error;
      },
    );
  };
  return {
    dialect: source.dialect,
    all: (query) => observe(() => source.all(query)),
    each: (query, visit) => observe(() => source.each(query, visit)),
    changeToken: () => observe(() => source.changeToken(), true),
    close: () => source.close(),
  };
}

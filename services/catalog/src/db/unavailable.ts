/**
 * A database that cannot be reached, opened or read as a catalog. The reason is our own
 * short phrase, safe to show to clients; the driver's text stays in the logs (as `cause`).
 */
export class CatalogUnavailable extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`catalog unavailable: ${reason}`, options);
    this.name = "CatalogUnavailable";
  }
}

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
    return new CatalogUnavailable("catalog tables are missing", { cause: error });
  }
  if (code === "42P01" || code === "42703") return new CatalogUnavailable("catalog tables are missing", { cause: error });
  if (/^(08|28|3D|57P|53)/.test(code) || /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|EAI_AGAIN)$/.test(code)) {
    return new CatalogUnavailable("database connection failed", { cause: error });
  }
  if (/Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(message)) {
    return new CatalogUnavailable("database connection failed", { cause: error });
  }
  return error;
}

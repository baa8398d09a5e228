import { mkdirSync } from "node:fs";
import { openPostgres } from "./pg.js";

export { LightAbortController, LightAbortSignal } from "./abort.js";
export { statementName } from "./pg.js";

import { openPglite } from "./pglite.js";
import type { Database, DatabaseOptions } from "./types.js";

export type { Database, DatabaseOptions, ListenHandlers, Queryable, QueryOptions, QueryResult, TransactionOptions } from "./types.js";
export { ResponseTooLargeError } from "./types.js";

/** Opens a PostgreSQL server when a URL is given, otherwise the embedded PGlite engine. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options);
  // `memory://` is PGlite's in-memory store; anything else is a directory kept across restarts.
  if (options.dataDir && !options.dataDir.startsWith("memory://")) mkdirSync(options.dataDir, { recursive: true });
  return openPglite(options.dataDir);
}

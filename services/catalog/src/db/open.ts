import { openDatabase } from "@platform/core";
import { type CatalogSource, openPostgresSource, openSqliteSource } from "./source.js";
import { type CatalogTarget, readOnlyPostgresUrl } from "./url.js";

export interface SourceOptions {
  /** pg pool size. */
  maxConnections: number;
  /** SQLite page cache in MiB. */
  sqliteCacheMb: number;
}

export async function openCatalogSource(target: CatalogTarget, options: SourceOptions): Promise<CatalogSource> {
  if (target.kind === "sqlite") return openSqliteSource(target.path, { cacheMb: options.sqliteCacheMb });
  const db = await openDatabase({ url: readOnlyPostgresUrl(target.url), maxConnections: options.maxConnections });
  return openPostgresSource(db, { owned: true });
}

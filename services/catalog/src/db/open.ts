import { openDatabase } from "@platform/core";
import { type CatalogSource, openPostgresSource, openSqliteSource } from "./source.js";
import { type CatalogTarget, readOnlyPostgresUrl } from "./url.js";

export async function openCatalogSource(target: CatalogTarget, maxConnections = 10): Promise<CatalogSource> {
  if (target.kind === "sqlite") return openSqliteSource(target.path);
  const db = await openDatabase({ url: readOnlyPostgresUrl(target.url), maxConnections });
  return openPostgresSource(db, { owned: true });
}

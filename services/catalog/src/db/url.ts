/**
 * Catalog database URLs in SQLAlchemy's form, as the original accepted them:
 * `sqlite:///relative.db`, `sqlite:////abs/path.db`, `postgresql[+psycopg|+psycopg2]://...`.
 */
import { resolve } from "node:path";

export type CatalogTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

const POSTGRES = /^(postgres|postgresql)(\+(psycopg|psycopg2|pg8000|asyncpg))?:\/\//i;

/** Throws an Error whose message says what is wrong with the URL. */
export function parseCatalogUrl(raw: string, cwd = process.cwd()): CatalogTarget {
  const url = raw.trim();
  if (/^sqlite(\+pysqlite)?:/i.test(url)) {
    const m = /^sqlite(?:\+pysqlite)?:\/\/([^?]*)(\?.*)?$/i.exec(url);
    if (!m) throw new Error(`"${url}" is not a SQLite URL (expected sqlite:///relative.db or sqlite:////absolute/path.db)`);
    const rest = m[1] ?? "";
    if (rest === "" || rest === "/" || rest === "/:memory:") {
      throw new Error("an in-memory SQLite database holds no catalog; give a file path (sqlite:///catalog.db)");
    }
    if (!rest.startsWith("/")) throw new Error(`"${url}" names a host; use sqlite:///relative.db or sqlite:////absolute/path.db`);
    const path = rest.slice(1);
    return { kind: "sqlite", path: resolve(cwd, decodeURIComponent(path)) };
  }
  if (POSTGRES.test(url)) {
    const normalised = url.replace(POSTGRES, "postgresql://");
    try {
      new URL(normalised);
    } catch {
      throw new Error(`"${url}" is not a valid PostgreSQL URL`);
    }
    return { kind: "postgres", url: normalised };
  }
  throw new Error(`unsupported catalog database URL "${url}" (use sqlite:///path.db or postgresql://user@host/db)`);
}

/** Adds `default_transaction_read_only` so the service cannot write to the catalog even by mistake. */
export function readOnlyPostgresUrl(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("options")) u.searchParams.set("options", "-c default_transaction_read_only=on");
  return u.toString();
}

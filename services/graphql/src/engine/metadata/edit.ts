/**
 * Shared plumbing of the metadata operations: lookups that fail with Hasura's errors, and
 * copy-on-write updates (only the objects on the path to a change are copied, so an operation
 * never mutates the metadata it was given and stays cheap on large metadata).
 */
import { sourceNotFound, tableNotTracked } from "../errors/index.js";
import type { RemoteSchemaAccess } from "../remote/registry.js";
import { sameTable, tableLabel } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import type { Metadata, QualifiedTable, SourceMetadata, TableMetadata } from "./types.js";

export interface OperationResult {
  metadata: Metadata;
  /** The response body. */
  result: unknown;
}

/** What an operation may consult besides the catalog. */
export interface OperationContext {
  /** The remote schemas' fetched schemas (absent: remote schemas are not checked). */
  remotes?: RemoteSchemaAccess | undefined;
}

/** One metadata API operation: a pure function of the metadata, its arguments and the catalog (and what was fetched). */
export type Operation = (metadata: Metadata, args: unknown, catalog: CatalogView, context?: OperationContext) => OperationResult;

export const ARGS = "$.args";

export function success(metadata: Metadata): OperationResult {
  return { metadata, result: { message: "success" } };
}

export function findSource(metadata: Metadata, name: string, path = ARGS): SourceMetadata {
  const source = metadata.sources.find((s) => s.name === name);
  if (!source) throw sourceNotFound(name, path);
  return source;
}

export function findTable(source: SourceMetadata, table: QualifiedTable): TableMetadata | undefined {
  return source.tables.find((t) => sameTable(t.table, table));
}

/** The tracked table, or Hasura's `table "x" does not exist in source: default`. */
export function requireTable(metadata: Metadata, sourceName: string, table: QualifiedTable, path = ARGS): TableMetadata {
  const found = findTable(findSource(metadata, sourceName, path), table);
  if (!found) throw tableNotTracked(table, sourceName, path);
  return found;
}

export function withSource(metadata: Metadata, name: string, update: (source: SourceMetadata) => SourceMetadata): Metadata {
  findSource(metadata, name);
  return { ...metadata, sources: metadata.sources.map((s) => (s.name === name ? update(s) : s)) };
}

export function withTable(
  metadata: Metadata,
  sourceName: string,
  table: QualifiedTable,
  update: (table: TableMetadata) => TableMetadata,
): Metadata {
  requireTable(metadata, sourceName, table);
  return withSource(metadata, sourceName, (source) => ({
    ...source,
    tables: source.tables.map((t) => (sameTable(t.table, table) ? update(t) : t)),
  }));
}

/** Sets `key` to `value`, or removes it when the value is empty, so exports stay minimal. */
export function setOrDrop<T extends object, K extends keyof T>(obj: T, key: K, value: T[K] | undefined): T {
  const copy = { ...obj };
  const empty = value === undefined || (Array.isArray(value) && value.length === 0);
  if (empty) delete copy[key];
  else copy[key] = value as T[K];
  return copy;
}

/** The names a table already uses for GraphQL fields: columns, relationships, computed fields. */
export function fieldNames(table: TableMetadata, catalog: CatalogView): Set<string> {
  const names = new Set(catalog.columns(table.table.schema, table.table.name) ?? []);
  for (const rel of [...(table.object_relationships ?? []), ...(table.array_relationships ?? [])]) names.add(rel.name);
  for (const field of table.computed_fields ?? []) {
    const name = (field as { name?: unknown }).name;
    if (typeof name === "string") names.add(name);
  }
  return names;
}

/** How Hasura names a dependent object in a dependency-error. */
export function describeObject(
  kind: "relationship" | "permission" | "remote relationship",
  table: QualifiedTable,
  name: string,
  source: string,
): string {
  return `${kind} ${tableLabel(table)}.${name} in source "${source}"`;
}

/**
 * What the metadata operations need to know about the database: which tables, columns,
 * keys and functions exist. A narrow interface so the operations stay pure functions of
 * (metadata, arguments, catalog) and tests can hand them a plain object.
 */

import { functionKey, type PgFunction } from "../catalog/functions.js";
import { type PgCatalog, tableKey } from "../catalog/types.js";
import { scalarName } from "../model/scalars.js";

export interface ForeignKeyInfo {
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export interface CatalogView {
  hasTable(schema: string, name: string): boolean;
  /** Column names in table order, or undefined when the table does not exist. */
  columns(schema: string, name: string): string[] | undefined;
  /** Foreign keys declared on the table (the table is the referencing side). */
  foreignKeys(schema: string, name: string): ForeignKeyInfo[];
  /** Primary key columns; when absent, enum tables are not checked. */
  primaryKey?(schema: string, name: string): string[] | undefined;
  /** `pg_type.typname` of a column (`text`, `int4`, ...); when absent, enum tables are not checked. */
  columnType?(schema: string, name: string, column: string): string | undefined;
  /** When absent, track_function does not check that the function exists. */
  hasFunction?(schema: string, name: string): boolean;
  /** The overloads of a function; when absent, functions and computed fields are not validated. */
  functions?(schema: string, name: string): PgFunction[] | undefined;
  /** Whether a GraphQL name is a Postgres scalar (`uuid`, `geography`); when absent, custom types may name any. */
  isPgScalar?(graphqlName: string): boolean;
  /**
   * What identifies a table and its columns across a rename (pg_class.oid, pg_attribute.attnum);
   * when absent, renames made by run_sql are not followed.
   */
  identity?(schema: string, name: string): TableIdentity | undefined;
  /** The table with that pg_class.oid now. */
  tableWithOid?(oid: string): { schema: string; name: string } | undefined;
}

export interface TableIdentity {
  oid: string;
  /** Column names by attnum. */
  columns: Map<number, string>;
}

/** A view over the introspected catalog. */
export function catalogViewOf(catalog: PgCatalog): CatalogView {
  const table = (schema: string, name: string) => catalog.tables.get(tableKey(schema, name));
  const pgScalars = catalog.baseTypes ? new Set([...catalog.baseTypes].map(scalarName)) : undefined;
  return {
    ...(pgScalars ? { isPgScalar: (name: string) => pgScalars.has(name) } : {}),
    hasTable: (schema, name) => table(schema, name) !== undefined,
    columns: (schema, name) => table(schema, name)?.columns.map((c) => c.name),
    foreignKeys: (schema, name) =>
      (table(schema, name)?.foreignKeys ?? []).map((fk) => ({
        columns: fk.columns,
        refSchema: fk.refSchema,
        refTable: fk.refTable,
        refColumns: fk.refColumns,
      })),
    primaryKey: (schema, name) => table(schema, name)?.primaryKey?.columns,
    // A domain counts as its base type, as in Hasura's enum-table check.
    columnType: (schema, name, column) => {
      const found = table(schema, name)?.columns.find((c) => c.name === column);
      return found ? (found.baseType ?? found.type) : undefined;
    },
    ...(catalog.functions ? functionsView(catalog.functions) : {}),
    ...identityView(catalog),
  };
}

function identityView(catalog: PgCatalog): Pick<CatalogView, "identity" | "tableWithOid"> {
  const byOid = new Map<string, { schema: string; name: string }>();
  for (const t of catalog.tables.values()) if (t.oid !== undefined) byOid.set(t.oid, { schema: t.schema, name: t.name });
  return {
    identity: (schema, name) => {
      const t = catalog.tables.get(tableKey(schema, name));
      return t?.oid === undefined ? undefined : { oid: t.oid, columns: new Map(t.columns.map((c) => [c.position, c.name])) };
    },
    tableWithOid: (oid) => byOid.get(oid),
  };
}

function functionsView(functions: Map<string, PgFunction[]>): Pick<CatalogView, "hasFunction" | "functions"> {
  return {
    hasFunction: (schema, name) => functions.has(functionKey(schema, name)),
    functions: (schema, name) => functions.get(functionKey(schema, name)),
  };
}

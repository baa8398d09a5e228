/**
 * Reads tables, views and their keys from pg_catalog in one statement: one row per relation
 * with its columns, constraints and unique indexes aggregated as JSON, so 1,000 tables cost one
 * round trip. Follows what Hasura's `pg_table_metadata.sql` reads.
 */
import { type Queryable, type Sql, sql } from "@platform/core";
import { introspectFunctions } from "./functions.js";
import { type PgCatalog, type PgColumn, type PgConstraint, type PgForeignKey, type PgTable, tableKey } from "./types.js";

export interface TableName {
  schema: string;
  name: string;
}

interface RelationRow {
  /** pg_class.oid as text: what stays when a table is renamed. */
  oid: string;
  schema: string;
  name: string;
  relkind: string;
  comment: string | null;
  /** pg_relation_is_updatable bits for views; null for other kinds. */
  mutability: number | null;
  columns: RawColumn[] | null;
  constraints: RawConstraint[] | null;
  unique_indexes: RawIndex[] | null;
}

interface RawColumn {
  name: string;
  position: number;
  type: string;
  type_kind: string;
  element_type: string | null;
  base_type: string | null;
  not_null: boolean;
  has_default: boolean;
  identity: string;
  generated: string;
  comment: string | null;
}

interface RawConstraint {
  name: string;
  type: "p" | "u" | "f";
  columns: string[];
  ref_schema: string | null;
  ref_table: string | null;
  ref_columns: string[] | null;
}

interface RawIndex {
  name: string;
  columns: string[];
  partial: boolean;
  expressions: boolean;
}

const KINDS: Record<string, PgTable["kind"]> = {
  r: "table",
  p: "partitioned_table",
  v: "view",
  m: "materialized_view",
  f: "foreign_table",
};

// pg_relation_is_updatable bits: 1 << CMD_UPDATE, 1 << CMD_INSERT, 1 << CMD_DELETE.
const UPDATABLE = 4;
const INSERTABLE = 8;
const DELETABLE = 16;

/**
 * Introspects the given tables (all user tables when `tables` is omitted: every schema but
 * pg_*, information_schema and Hasura's own). Missing tables are simply absent from the result.
 * Functions: the named ones, or every user function when `tables` is omitted too.
 */
/** What custom types may name as Postgres scalars, as Hasura reads them from pg_type. */
export async function introspectBaseTypes(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>(sql`SELECT typname AS name FROM pg_catalog.pg_type WHERE typtype = 'b'`);
  return new Set(rows.map((t) => t.name));
}

export async function introspect(db: Queryable, tables?: readonly TableName[], functions?: readonly TableName[]): Promise<PgCatalog> {
  const catalog: PgCatalog = { tables: new Map(), enumValues: new Map() };
  if (tables === undefined || (functions && functions.length > 0)) {
    catalog.functions = await introspectFunctions(db, tables === undefined ? functions : (functions ?? []));
  }
  if (tables === undefined) catalog.baseTypes = await introspectBaseTypes(db);
  if (tables && tables.length === 0) return catalog;
  const { rows } = await db.query<RelationRow>(relationsQuery(tables));
  for (const row of rows) {
    const table = toTable(row);
    catalog.tables.set(tableKey(table.schema, table.name), table);
  }
  return catalog;
}

function relationFilter(tables?: readonly TableName[]): Sql {
  if (!tables) {
    return sql`n.nspname NOT LIKE 'pg\\_%' AND n.nspname NOT IN ('information_schema', 'hdb_catalog', 'hdb_lib', '_timescaledb_internal')`;
  }
  const schemas = tables.map((t) => t.schema);
  const names = tables.map((t) => t.name);
  return sql`(n.nspname, c.relname) IN (SELECT s, t FROM unnest(${schemas}::text[], ${names}::text[]) AS w(s, t))`;
}

function relationsQuery(tables?: readonly TableName[]): Sql {
  return sql`
    SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS relkind, d.description AS comment,
      CASE WHEN c.relkind IN ('v', 'm') THEN pg_catalog.pg_relation_is_updatable(c.oid::regclass, true) END AS mutability,
      (SELECT json_agg(json_build_object(
          'name', a.attname, 'position', a.attnum, 'type', t.typname, 'type_kind', t.typtype,
          'element_type', et.typname, 'base_type', bt.typname, 'not_null', a.attnotnull,
          'has_default', a.atthasdef, 'identity', a.attidentity::text, 'generated', a.attgenerated::text,
          'comment', ad.description) ORDER BY a.attnum)
        FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_catalog.pg_type et ON t.typcategory = 'A' AND et.oid = t.typelem
        LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
        LEFT JOIN pg_catalog.pg_description ad
          ON ad.classoid = 'pg_catalog.pg_class'::regclass AND ad.objoid = c.oid AND ad.objsubid = a.attnum
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
      (SELECT json_agg(json_build_object(
          'name', k.conname, 'type', k.contype,
          'columns', (SELECT json_agg(ka.attname ORDER BY u.ord)
            FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_catalog.pg_attribute ka ON ka.attrelid = k.conrelid AND ka.attnum = u.attnum),
          'ref_schema', fn.nspname, 'ref_table', fc.relname,
          'ref_columns', (SELECT json_agg(fa.attname ORDER BY u.ord)
            FROM unnest(k.confkey) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_catalog.pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = u.attnum))
          ORDER BY k.contype, k.conname)
        FROM pg_catalog.pg_constraint k
        LEFT JOIN pg_catalog.pg_class fc ON fc.oid = k.confrelid
        LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = fc.relnamespace
        WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u', 'f')) AS constraints,
      (SELECT json_agg(json_build_object(
          'name', ic.relname,
          'columns', (SELECT coalesce(json_agg(ia.attname ORDER BY u.ord), '[]')
            FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_catalog.pg_attribute ia ON ia.attrelid = i.indrelid AND ia.attnum = u.attnum
            WHERE u.ord <= i.indnkeyatts),
          'partial', i.indpred IS NOT NULL, 'expressions', i.indexprs IS NOT NULL) ORDER BY ic.relname)
        FROM pg_catalog.pg_index i
        JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
        WHERE i.indrelid = c.oid AND i.indisunique AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint x WHERE x.conindid = i.indexrelid AND x.conrelid = c.oid)
      ) AS unique_indexes
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_catalog.pg_description d
      ON d.classoid = 'pg_catalog.pg_class'::regclass AND d.objoid = c.oid AND d.objsubid = 0
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${relationFilter(tables)}
    ORDER BY n.nspname, c.relname`;
}

function toColumn(raw: RawColumn): PgColumn {
  return {
    name: raw.name,
    type: raw.type,
    elementType: raw.element_type,
    typeKind: raw.type_kind,
    // Views report every column as nullable, as Hasura does: attnotnull is false there.
    nullable: !raw.not_null,
    // An identity column fills itself in when omitted, so it counts as having a default.
    hasDefault: raw.has_default || raw.identity !== "",
    isGenerated: raw.generated === "s" || raw.identity === "a",
    isIdentity: raw.identity !== "",
    position: raw.position,
    comment: raw.comment,
    baseType: raw.base_type,
  };
}

function toTable(row: RelationRow): PgTable {
  const kind = KINDS[row.relkind] ?? "table";
  const constraints = row.constraints ?? [];
  let primaryKey: PgConstraint | null = null;
  const unique: PgConstraint[] = [];
  const foreignKeys: PgForeignKey[] = [];
  for (const k of constraints) {
    const columns = k.columns ?? [];
    if (k.type === "p") primaryKey = { name: k.name, columns, kind: "primary_key" };
    else if (k.type === "u") unique.push({ name: k.name, columns, kind: "unique_constraint" });
    else if (k.ref_schema !== null && k.ref_table !== null) {
      foreignKeys.push({ name: k.name, columns, refSchema: k.ref_schema, refTable: k.ref_table, refColumns: k.ref_columns ?? [] });
    }
  }
  for (const i of row.unique_indexes ?? []) {
    unique.push({ name: i.name, columns: i.columns, kind: "unique_index", partial: i.partial, expressions: i.expressions });
  }
  const mutable = (bit: number): boolean => (row.mutability === null ? kind !== "materialized_view" : (row.mutability & bit) === bit);
  return {
    oid: row.oid,
    schema: row.schema,
    name: row.name,
    kind,
    columns: (row.columns ?? []).map(toColumn),
    primaryKey,
    uniqueConstraints: primaryKey ? [primaryKey, ...unique] : unique,
    foreignKeys,
    insertable: mutable(INSERTABLE),
    updatable: mutable(UPDATABLE),
    deletable: mutable(DELETABLE),
    comment: row.comment,
  };
}

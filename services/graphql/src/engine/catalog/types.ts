/** What PostgreSQL says about the tracked tables (introspected from pg_catalog). */
import type { PgFunction } from "./functions.js";

export interface PgColumn {
  name: string;
  /** Type name as pg_type.typname: `int4`, `text`, `timestamptz`, `_text` for text[] ... */
  type: string;
  /** Element type for arrays (`text` for `_text`), null otherwise. */
  elementType: string | null;
  /** pg_type.typtype: `b` base, `e` enum, `d` domain, `c` composite ... */
  typeKind: string;
  nullable: boolean;
  hasDefault: boolean;
  /** GENERATED ALWAYS AS (...) STORED, or an identity ALWAYS column. */
  isGenerated: boolean;
  isIdentity: boolean;
  position: number;
  comment: string | null;
  /**
   * For a domain column (typeKind `d`): the typname of the domain's base type. Hasura uses the
   * base type to pick the GraphQL scalar; `type` stays the domain's own name. Null otherwise.
   */
  baseType?: string | null;
}

export interface PgConstraint {
  name: string;
  columns: string[];
  /**
   * Set by `introspect`. `unique_index` is a unique index that is not a constraint: Hasura lists it
   * among the table's constraints, but `ON CONFLICT ON CONSTRAINT <name>` rejects it, so an upsert
   * on it has to name its columns instead.
   */
  kind?: "primary_key" | "unique_constraint" | "unique_index";
  /** Set by `introspect` for unique indexes with a WHERE clause or expression keys (`columns` then lists only plain columns). */
  partial?: boolean;
  expressions?: boolean;
}

export interface PgForeignKey {
  name: string;
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export interface PgTable {
  /** pg_class.oid (as text), the same after a rename; set by `introspect`. */
  oid?: string;
  schema: string;
  name: string;
  kind: "table" | "view" | "materialized_view" | "foreign_table" | "partitioned_table";
  columns: PgColumn[];
  primaryKey: PgConstraint | null;
  /** Unique constraints and unique indexes usable by ON CONFLICT, primary key included. */
  uniqueConstraints: PgConstraint[];
  foreignKeys: PgForeignKey[];
  /** For views: whether INSERT/UPDATE/DELETE are possible (auto-updatable or with rules/triggers). */
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  comment: string | null;
}

export interface EnumValue {
  value: string;
  description: string | null;
}

export interface PgCatalog {
  /** Keyed by `tableKey(schema, name)`. */
  tables: Map<string, PgTable>;
  /** Values of tables tracked with is_enum, keyed by `tableKey`. */
  enumValues: Map<string, EnumValue[]>;
  /** SQL functions by `schema.name` (overloads share a key); absent when none were read. */
  functions?: Map<string, PgFunction[]>;
  /** `pg_type.typname` of every base type (extensions' too, such as geography); absent when not read. */
  baseTypes?: Set<string>;
}

export function tableKey(schema: string, name: string): string {
  return `${schema}.${name}`;
}

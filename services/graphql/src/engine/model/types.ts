/** The resolved model the schema builder and compiler work from: metadata joined with the catalog. */
import type { DeletePermission, InsertPermission, SelectPermission, UpdatePermission } from "../metadata/types.js";

export interface ColumnModel {
  /** Column name in PostgreSQL. */
  name: string;
  /** GraphQL field name (custom column name or the column name). */
  field: string;
  pgType: string;
  /** GraphQL scalar name, or `<enumtable>_enum` for a column referencing an enum table. */
  scalar: string;
  nullable: boolean;
  /** GENERATED ALWAYS (expression or identity): never written by inserts or updates. */
  generated: boolean;
  /** Key of the enum table this column references, if any. */
  enumTable: string | null;
  comment: string | null;
}

export interface RelationshipModel {
  name: string;
  kind: "object" | "array";
  /** Key of the target table model. */
  target: string;
  /** Pairs of (column of this table, column of the target). */
  mapping: Array<[string, string]>;
  /** Object relationships on NOT NULL local FK columns are non-null in GraphQL. */
  nullable: boolean;
  /** Nested inserts write the related row after this one (the key is on the other side). */
  insertAfter: boolean;
}

export interface RootFieldNames {
  select: string;
  select_by_pk: string;
  select_aggregate: string;
  select_stream: string;
  insert: string;
  insert_one: string;
  update: string;
  update_by_pk: string;
  update_many: string;
  delete: string;
  delete_by_pk: string;
}

export interface Permissions {
  select: Map<string, SelectPermission>;
  insert: Map<string, InsertPermission>;
  update: Map<string, UpdatePermission>;
  delete: Map<string, DeletePermission>;
}

export interface TableModel {
  key: string;
  schema: string;
  name: string;
  /** GraphQL type name `T`. */
  typeName: string;
  columns: ColumnModel[];
  columnByName: Map<string, ColumnModel>;
  columnByField: Map<string, ColumnModel>;
  relationships: Map<string, RelationshipModel>;
  primaryKey: string[] | null;
  uniqueConstraints: Array<{ name: string; columns: string[] }>;
  isEnum: boolean;
  /** Whether PostgreSQL accepts INSERT / UPDATE / DELETE on it (views only when auto-updatable or with triggers). */
  mutable: { insert: boolean; update: boolean; delete: boolean };
  enumValues: Array<{ value: string; description: string | null }>;
  rootFields: RootFieldNames;
  permissions: Permissions;
  comment: string | null;
}

export interface Model {
  tables: Map<string, TableModel>;
  /** Every role named by a permission. */
  roles: Set<string>;
}

/**
 * Hasura metadata (v3, as `export_metadata` returns it), used as the engine's own model:
 * what the API stores and exports is exactly what clients send.
 */
import type { ApiLimits } from "./api-limits.js";

export interface QualifiedTable {
  schema: string;
  name: string;
}

/** A boolean expression over a table's columns and relationships, as written in metadata. */
export type BoolExp = { [key: string]: unknown };

export interface TableConfiguration {
  custom_name?: string;
  custom_root_fields?: Record<string, string | { name?: string; comment?: string } | null>;
  column_config?: Record<string, { custom_name?: string; comment?: string }>;
  /** Older spelling of column_config custom names. */
  custom_column_names?: Record<string, string>;
  comment?: string;
}

export interface ManualConfiguration {
  remote_table: QualifiedTable | string;
  column_mapping: Record<string, string>;
  insertion_order?: "before_parent" | "after_parent" | null;
}

export interface ObjectRelationship {
  name: string;
  using: {
    /** A column (or columns) of this table referencing the other table, or a remote FK `{table, column(s)}`. */
    foreign_key_constraint_on?: string | string[] | { table: QualifiedTable | string; column?: string; columns?: string[] };
    manual_configuration?: ManualConfiguration;
  };
  comment?: string;
}

export interface ArrayRelationship {
  name: string;
  using: {
    foreign_key_constraint_on?: { table: QualifiedTable | string; column?: string; columns?: string[] };
    manual_configuration?: ManualConfiguration;
  };
  comment?: string;
}

export type Columns = string[] | "*";

export interface SelectPermission {
  columns: Columns;
  filter?: BoolExp;
  limit?: number;
  allow_aggregations?: boolean;
  computed_fields?: string[];
  query_root_fields?: string[];
  subscription_root_fields?: string[];
}

export interface InsertPermission {
  check?: BoolExp;
  set?: Record<string, unknown>;
  columns?: Columns;
  backend_only?: boolean;
}

export interface UpdatePermission {
  columns?: Columns;
  filter?: BoolExp;
  check?: BoolExp | null;
  set?: Record<string, unknown>;
  backend_only?: boolean;
}

export interface DeletePermission {
  filter?: BoolExp;
  backend_only?: boolean;
}

export interface RolePermission<P> {
  role: string;
  permission: P;
  comment?: string;
}

export interface TableMetadata {
  table: QualifiedTable;
  configuration?: TableConfiguration;
  is_enum?: boolean;
  object_relationships?: ObjectRelationship[];
  array_relationships?: ArrayRelationship[];
  select_permissions?: RolePermission<SelectPermission>[];
  insert_permissions?: RolePermission<InsertPermission>[];
  update_permissions?: RolePermission<UpdatePermission>[];
  delete_permissions?: RolePermission<DeletePermission>[];
  computed_fields?: unknown[];
  /** Kept and reported inconsistent, not served (unserved.ts), unless they point to a remote schema. */
  remote_relationships?: unknown[];
  /** Served by eventing/ (those with transforms are reported inconsistent, not served). */
  event_triggers?: unknown[];
}

export interface SourceMetadata {
  name: string;
  kind: "postgres";
  tables: TableMetadata[];
  functions?: unknown[];
  configuration: Record<string, unknown>;
}

export interface Metadata {
  version: 3;
  sources: SourceMetadata[];
  /** Kept and reported inconsistent, not served (unserved.ts). */
  actions?: unknown[];
  custom_types?: Record<string, unknown>;
  /**
   * The raw `actions.graphql` SDL, which earlier versions stored beside the metadata. Not part
   * of Hasura's metadata and no longer written (load-dir.ts merges the SDL into `actions`);
   * never sent out by export_metadata.
   */
  actions_graphql?: string;
  /** API limits (api-limits.ts); absent when none is set. */
  api_limits?: ApiLimits;
  [other: string]: unknown;
}

export const DEFAULT_SOURCE = "default";

export function emptyMetadata(): Metadata {
  return { version: 3, sources: [{ name: DEFAULT_SOURCE, kind: "postgres", tables: [], configuration: {} }] };
}

/** A tracked function as metadata stores it (`sources[].functions[]`). */
export interface FunctionMetadata {
  function: QualifiedTable;
  configuration?: Record<string, unknown>;
  permissions?: unknown[];
  comment?: string;
  [other: string]: unknown;
}

/** A computed field as metadata stores it (`tables[].computed_fields[]`). */
export interface ComputedFieldMetadata {
  name: string;
  definition: { function: QualifiedTable; table_argument?: string; session_argument?: string };
  comment?: string;
}

/** The resolved model the schema builder and compiler work from: metadata joined with the catalog. */
import type { DeletePermission, InsertPermission, SelectPermission, UpdatePermission } from "../metadata/types.js";
import type { RemoteRelationshipModel } from "../remote/relationships.js";
import type { RemoteSchemaModel } from "../remote/types.js";
import type { Transforms } from "../transforms/config.js";

export interface ColumnModel {
  /** Column name in PostgreSQL. */
  name: string;
  /** GraphQL field name (custom column name or the column name). */
  field: string;
  pgType: string;
  /** GraphQL scalar name (of the elements, for an array column), or `<enumtable>_enum` for a column referencing an enum table. */
  scalar: string;
  /**
   * For a PostgreSQL array column (`pgType` `_text` for text[]): the element type (`text`). Such a
   * column is a GraphQL list of its element scalar (`[String!]`), as in Hasura v2.29+.
   */
  elementType?: string | null;
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

/** One argument of a SQL function call, in SQL order. */
export type FunctionArgModel =
  /** The row of the table a computed field is defined on. */
  | { kind: "table"; sqlName: string | null }
  /** The session variables as JSON. */
  | { kind: "session"; sqlName: string | null; pgType: string; typeSchema: string }
  /** A value from the `args` input: `name` is its GraphQL field (`arg_1` for an unnamed argument). */
  | { kind: "input"; name: string; sqlName: string | null; pgType: string; typeSchema: string; scalar: string; hasDefault: boolean };

export interface FunctionCallModel {
  schema: string;
  name: string;
  args: FunctionArgModel[];
  /** GraphQL name of the `args` input type. */
  argsTypeName: string;
  /** Description of the `args` argument. */
  argsDescription: string;
}

export interface ComputedFieldModel {
  name: string;
  call: FunctionCallModel;
  /** A scalar (pgType is the return type) or SETOF a tracked table (its key). */
  returns: { kind: "scalar"; pgType: string; scalar: string } | { kind: "table"; target: string };
  comment: string | null;
}

/** A tracked SQL function returning rows of a tracked table. */
export interface FunctionModel {
  key: string;
  call: FunctionCallModel;
  fieldName: string;
  aggregateFieldName: string;
  /** Key of the table whose rows the function returns. */
  returnTable: string;
  returnsSet: boolean;
  exposedAs: "query" | "mutation";
  description: string;
  /** Roles granted the function in metadata (needed for functions exposed as mutations). */
  permissions: Set<string>;
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
  computedFields: Map<string, ComputedFieldModel>;
  primaryKey: string[] | null;
  uniqueConstraints: Array<{ name: string; columns: string[] }>;
  isEnum: boolean;
  /** What PostgreSQL holds it as: a table's writes can be observed, a view's come from the tables it reads. */
  kind: "table" | "view" | "materialized_view" | "foreign_table" | "partitioned_table";
  /** Whether PostgreSQL accepts INSERT / UPDATE / DELETE on it (views only when auto-updatable or with triggers). */
  mutable: { insert: boolean; update: boolean; delete: boolean };
  enumValues: Array<{ value: string; description: string | null }>;
  rootFields: RootFieldNames;
  permissions: Permissions;
  comment: string | null;
}

/** A GraphQL type as written in metadata (`[Int!]!`), read: named or list, each nullable or not. */
export type TypeRef = { kind: "named"; name: string; nullable: boolean } | { kind: "list"; of: TypeRef; nullable: boolean };

/** A field of a custom type, or an argument of an action: its GraphQL type, read from how metadata writes it (`[Int!]!`). */
export interface CustomFieldModel {
  name: string;
  ref: TypeRef;
  description: string | null;
}

/** A relationship from an action's output object to a tracked table (`field_mapping`: object field -> column). */
export interface CustomRelationshipModel {
  name: string;
  kind: "object" | "array";
  /** Key of the target table model. */
  target: string;
  /** Pairs of (field of the object, column of the target). */
  mapping: Array<[string, string]>;
}

export interface CustomObjectModel {
  name: string;
  description: string | null;
  fields: CustomFieldModel[];
  relationships: CustomRelationshipModel[];
}

/**
 * The custom types of actions (Hasura's `set_custom_types`): scalars, enums, input objects and
 * output objects, by name. Postgres scalars (`uuid`, `jsonb`) are not listed; they resolve by name.
 */
export interface CustomTypesModel {
  scalars: Map<string, { name: string; description: string | null }>;
  enums: Map<
    string,
    { name: string; description: string | null; values: Array<{ value: string; description: string | null; deprecated: boolean }> }
  >;
  inputs: Map<string, { name: string; description: string | null; fields: CustomFieldModel[] }>;
  objects: Map<string, CustomObjectModel>;
}

/** A header sent to an action handler: a literal value or one read from the environment. */
export interface HeaderModel {
  name: string;
  value?: string;
  valueFromEnv?: string;
}

/** An action whose types resolve: a query or mutation field answered by an HTTP handler. */
export interface ActionModel {
  name: string;
  type: "query" | "mutation";
  kind: "synchronous" | "asynchronous";
  arguments: CustomFieldModel[];
  /** The output type, read from how metadata writes it (`[UserId]!`). */
  output: TypeRef;
  /** The handler URL, `{{ENV_VAR}}` templates unresolved (Hasura reports the template, not the URL). */
  handler: string;
  headers: HeaderModel[];
  forwardClientHeaders: boolean;
  timeoutSeconds: number;
  /** The request and response transforms (REST connectors), applied to each call. */
  transforms: Transforms;
  description: string | null;
  /** Roles given the action by create_action_permission (admin always has it). */
  permissions: Set<string>;
}

export interface Model {
  tables: Map<string, TableModel>;
  /** Tracked functions by `schema.name`. */
  functions: Map<string, FunctionModel>;
  /** Every role named by a permission. */
  roles: Set<string>;
  /** Roles whose `__schema` / `__type` queries are refused (metadata's graphql_schema_introspection). */
  introspectionDisabled: Set<string>;
  /** Actions whose types resolve, by name. */
  actions: Map<string, ActionModel>;
  customTypes: CustomTypesModel;
  /** Remote schemas served (remote/registry.ts resolves them after the database objects), in metadata order. */
  remoteSchemas?: RemoteSchemaModel[];
  /** Tables' remote relationships to the remote schemas served, by table key (remote/relationships.ts). */
  remoteRelationships?: Map<string, RemoteRelationshipModel[]>;
  /**
   * HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: a role other than admin sees a remote schema
   * only through a permission of its own (remote/permission.ts remoteView).
   */
  remoteSchemaPermissions?: boolean;
}

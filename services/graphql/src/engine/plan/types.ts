/**
 * The typed plan of an operation: every selected field resolved against the model into what it
 * reads or writes (a table's rows, one row by key, an aggregate, a function's rows, a mutation)
 * with its arguments read and shaped. The planner (plan/) builds it from the document and the
 * role's GraphQL schema; the compiler (compiler/) turns it into SQL without looking at GraphQL;
 * the executors run that SQL. New kinds of root fields (actions, remote schemas) and of row
 * fields (remote relationships) are new node kinds with executors of their own.
 */
import type { FieldNode, VariableDefinitionNode } from "graphql";
import type {
  ActionModel,
  ComputedFieldModel,
  CustomRelationshipModel,
  FunctionModel,
  RelationshipModel,
  TableModel,
} from "../model/types.js";
import type { RemoteRelationshipModel } from "../remote/relationships.js";
import type { RemoteSchemaModel } from "../remote/types.js";

/** Where a node is in the request, for error paths (`["selectionSet", "author", "args", ...]`). */
export type Path = ReadonlyArray<string | number>;

/** A field's arguments as given (unset variables absent), lists shaped by their types; values may be plan slots. */
export type Args = Record<string, unknown>;

/** `__typename` anywhere: the name of the type it is asked on. */
export interface TypenameNode {
  kind: "typename";
  key: string;
  typeName: string;
}

/** The rows of a table (or of a function returning its rows): filtered, ordered and paged by `args`. */
export interface RowsNode {
  table: TableModel;
  args: Args;
  fields: RowField[];
  path: Path;
}

/** The aggregate object of a table's rows (`<table>_aggregate`). */
export interface AggregateNode {
  table: TableModel;
  args: Args;
  typeName: string;
  fields: AggregateField[];
  path: Path;
}

/** A field of one row's JSON object. */
export type RowField =
  | TypenameNode
  /** A column; `jsonPath` is the `path` argument of json/jsonb columns. */
  | { kind: "column"; key: string; column: string; jsonPath: unknown; path: Path }
  | { kind: "object_rel"; key: string; rel: RelationshipModel; target: TableModel; fields: RowField[]; path: Path }
  | { kind: "array_rel"; key: string; rel: RelationshipModel; rows: RowsNode }
  | { kind: "array_rel_aggregate"; key: string; rel: RelationshipModel; aggregate: AggregateNode }
  | { kind: "computed_scalar"; key: string; computed: ComputedFieldModel; args: Args; path: Path }
  /** A computed field returning rows of a table: `rows` reads the function's result. */
  | { kind: "computed_table"; key: string; computed: ComputedFieldModel; rows: RowsNode }
  | RemoteJoinNode;

/**
 * A table's remote relationship: the statement gives each row's lhs columns at `key` (an object
 * of column -> value), and the executor (executors/remote-joins.ts) asks the remote for every
 * row in one call and puts each row's answer there instead.
 */
export interface RemoteJoinNode {
  kind: "remote_rel";
  key: string;
  rel: RemoteRelationshipModel;
  /** The relationship's field as sent (the remote's names): the caller's arguments and selections; the fixed ones are added per row. */
  field: FieldNode;
  /** The variables the field uses (types in the remote's names): the operation's, and those made for the role's presets. */
  variables: VariableDefinitionNode[];
  /**
   * The values of the variables made in planning (parts of variables expanded for presets); the
   * operation's own are the request's, read when the join is made. A plan with some cannot serve
   * another request.
   */
  values: Record<string, unknown>;
  /** `__typename`s of the answer, under the field's own name. */
  typenames: TypenameTree;
  path: Path;
  /** Variables filled from the session when the call is made. */
  sessionPresets: SessionPreset[];
}

/** A field of an aggregate object. */
export type AggregateField =
  | TypenameNode
  | { kind: "nodes"; key: string; fields: RowField[]; path: Path }
  | { kind: "aggregate"; key: string; typeName: string; fields: AggregateFunctionField[] };

/** A field of `<table>_aggregate_fields`: count, or one aggregate function over columns. */
export type AggregateFunctionField =
  | TypenameNode
  | { kind: "count"; key: string; columns: unknown; distinct: boolean }
  | {
      kind: "function";
      key: string;
      op: string;
      typeName: string;
      columns: Array<TypenameNode | { kind: "column"; key: string; column: string }>;
    };

/**
 * A field of an action's output object: a field of the handler's answer (`fields` for an object
 * value, null for a scalar), or a relationship to a table joined on the answer's fields.
 */
export type OutputField =
  | TypenameNode
  | { kind: "output_field"; key: string; field: string; fields: OutputField[] | null }
  | { kind: "object_rel"; key: string; rel: CustomRelationshipModel; target: TableModel; fields: RowField[]; path: Path }
  | { kind: "array_rel"; key: string; rel: CustomRelationshipModel; rows: RowsNode }
  | { kind: "array_rel_aggregate"; key: string; rel: CustomRelationshipModel; aggregate: AggregateNode };

/**
 * A synchronous action: its handler is called with `input` (the arguments as given), and its
 * answer, checked against the output type, is shaped by `fields` (null when the output is a scalar).
 */
export interface ActionNode {
  kind: "action";
  key: string;
  action: ActionModel;
  input: Args;
  fields: OutputField[] | null;
  path: Path;
}

/** A field of an asynchronous action's log entry: its id, when it was made, its errors, or the handler's output. */
export type AsyncActionField =
  | TypenameNode
  | { kind: "async_field"; key: string; field: "id" | "created_at" | "errors" }
  | { kind: "async_output"; key: string; fields: OutputField[] | null };

/** An asynchronous action's query field: the log entry `id` of the caller's own call (null for another session's). */
export interface AsyncQueryNode {
  kind: "async_action_query";
  key: string;
  action: ActionModel;
  id: unknown;
  fields: AsyncActionField[];
  path: Path;
}

/** Where a remote's answer has `__typename` values (by response key), to be given our type names. */
export type TypenameTree = Map<string, TypenameTree | "typename">;

/** One request to a remote schema: one of its root fields, in the remote's own names. */
/** A session variable an argument preset reads, sent as the variable `name` of the remote's type `type` (non-null). */
export interface SessionPreset {
  name: string;
  /** The session variable, lower case (`x-hasura-user-id`). */
  variable: string;
  type: string;
  /** The enum's values, when `type` is an enum. */
  enumValues: string[] | null;
}

export interface RemoteCall {
  kind: "remote_call";
  /** The response key (in our answer and in the remote's: the field is aliased to it). */
  key: string;
  /** The field sent: the remote's field and type names, fragments inlined, @skip/@include applied. */
  field: FieldNode;
  /** The operation's variables the field uses (types in the remote's names), and their values. */
  variables: VariableDefinitionNode[];
  values: Record<string, unknown>;
  /** The request's operation name, which the remote's operation is given too. */
  operationName: string | null;
  typenames: TypenameTree;
  /** Variables filled from the session when the call is made. */
  sessionPresets: SessionPreset[];
}

/**
 * A remote schema's root field: answered by one call, or (`namespaced`, under its
 * root_fields_namespace) an object of its fields, one call each.
 */
export interface RemoteNode {
  kind: "remote";
  key: string;
  remote: RemoteSchemaModel;
  operation: "query" | "mutation";
  namespaced: boolean;
  fields: Array<TypenameNode | RemoteCall>;
  path: Path;
}

/**
 * Where a stream starts and which way it runs: one column (`column`, its PostgreSQL name; `field`,
 * its GraphQL name), its initial value (a value, or a plan slot) and the ordering.
 */
export interface StreamCursor {
  column: string;
  field: string;
  initial: unknown;
  descending: boolean;
}

/** A root field of query_root (and of subscription_root, which adds the streams). */
export type QueryField =
  | TypenameNode
  | { kind: "select"; key: string; rows: RowsNode }
  /** `T_stream`: `rows` filtered by `where`, batches of `batchSize` from the cursor on. */
  | { kind: "select_stream"; key: string; rows: RowsNode; cursor: StreamCursor; batchSize: unknown }
  | { kind: "select_by_pk"; key: string; table: TableModel; pk: Args; fields: RowField[]; path: Path }
  | { kind: "select_aggregate"; key: string; aggregate: AggregateNode }
  /** A tracked function's rows; `call` is the value of its `args` argument. */
  | { kind: "function"; key: string; fn: FunctionModel; call: unknown; rows: RowsNode }
  | { kind: "function_aggregate"; key: string; fn: FunctionModel; call: unknown; aggregate: AggregateNode }
  | ActionNode
  | AsyncQueryNode
  | RemoteNode;

/** The `{affected_rows, returning}` object a mutation answers with. */
export type MutationResponseField =
  | TypenameNode
  | { kind: "affected_rows"; key: string }
  | { kind: "returning"; key: string; fields: RowField[]; path: Path };

/**
 * What a mutation answers: the response object, or the one row of `*_one` / `*_by_pk`
 * (`fields` of that row).
 */
export type MutationOutput =
  | { kind: "response"; fields: MutationResponseField[]; path: Path }
  | { kind: "row"; fields: RowField[]; path: Path };

/** One object of an insert, with its nested inserts resolved against the table's relationships. */
export interface InsertObject {
  table: TableModel;
  /** Column values by GraphQL field name (relationship keys removed). */
  columns: Args;
  /** Object relationships inserted first; their rows give this row's key columns. */
  parents: Array<{ rel: RelationshipModel; object: InsertObject }>;
  /** Array (and reverse object) relationships inserted after this row, which gives their key columns. */
  children: Array<{ rel: RelationshipModel; objects: InsertObject[] }>;
  onConflict: Args | undefined;
  /** The object's own path, and that of its `on_conflict` argument. */
  path: Path;
  conflictPath: Path;
}

/** One set of changes of an update: the operators' values and which rows they apply to. */
export interface UpdateChanges {
  args: Args;
  /** The primary key's values (`pk_columns`) of `update_by_pk`, or null for `where`. */
  pk: Args | null;
}

/** A root field of mutation_root. */
export type MutationField =
  | TypenameNode
  | { kind: "insert"; key: string; table: TableModel; objects: InsertObject[]; output: MutationOutput; path: Path }
  | { kind: "update"; key: string; table: TableModel; changes: UpdateChanges; output: MutationOutput; path: Path }
  | { kind: "update_many"; key: string; table: TableModel; updates: UpdateChanges[]; output: MutationOutput; path: Path }
  | { kind: "delete"; key: string; table: TableModel; args: Args; pk: Args | null; output: MutationOutput; path: Path }
  /** A VOLATILE function tracked as a mutation: its rows, read in the mutation's transaction. */
  | { kind: "function"; key: string; fn: FunctionModel; call: unknown; rows: RowsNode }
  | ActionNode
  | RemoteNode;

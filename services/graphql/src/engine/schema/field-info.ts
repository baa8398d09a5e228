/** What a schema field reads, attached as `extensions.hasura` for the compiler. */
export type FieldInfo =
  | { kind: "select" | "select_by_pk" | "select_aggregate" | "select_stream"; table: string }
  | { kind: MutationKind; table: string }
  | { kind: "affected_rows" | "returning" }
  | { kind: "column"; column: string }
  | { kind: "object_rel" | "array_rel" | "array_rel_aggregate"; rel: string }
  | { kind: "aggregate" | "nodes" | "count" }
  | { kind: "aggregate_op"; op: string }
  | { kind: "computed_scalar" | "computed_table"; computed: string }
  | { kind: "function" | "function_aggregate"; table: string; fn: string }
  /** An action's root field, and a field of an action's output object (relationships use the *_rel kinds). */
  | { kind: "action"; action: string }
  | { kind: "output_field"; field: string }
  /** An asynchronous action's query field (`name(id: uuid!)`), and the fields of its log entry. */
  | { kind: "async_action_query"; action: string }
  | { kind: "async_field"; field: "id" | "created_at" | "errors" | "output" }
  /** A remote schema's root field (`field`: the remote's own name), and its `root_fields_namespace` field. */
  | { kind: "remote"; remote: string; field: string }
  | { kind: "remote_namespace"; remote: string }
  /** A table's remote relationship to a remote schema's field (`rel`: its name). */
  | { kind: "remote_rel"; rel: string };

export function fieldInfo(extensions: unknown): FieldInfo | undefined {
  return (extensions as { hasura?: FieldInfo } | undefined)?.hasura;
}

export type MutationKind = "insert" | "insert_one" | "update" | "update_by_pk" | "update_many" | "delete" | "delete_by_pk";

/**
 * What Hasura v2 generates differently from the Hasura 1.3.3 that printed MetaGame's committed
 * `schema.graphql`, for the same tables, metadata and actions. Each change is named, says why it is
 * accepted, and recognises exactly the differences it covers; any other difference fails the run.
 * Sources: Hasura's v2 schema generation (server/src-lib/Hasura/GraphQL/Schema/*.hs in
 * https://github.com/hasura/graphql-engine) and its documentation
 * (https://hasura.io/docs/2.0/api-reference/graphql-api/query/,
 * https://hasura.io/docs/2.0/api-reference/graphql-api/mutation/,
 * https://hasura.io/docs/2.0/subscriptions/postgres/streaming/).
 */
import type { RuleContext } from "./schema-diff.js";

interface Change {
  name: string;
  matches(c: RuleContext & { theirs: string; ours: string }): boolean;
}

const CHANGES: Change[] = [
  {
    name: "aggregate count is Int! in v2 (Int in v1)",
    matches: (c) =>
      c.kind === "field" && c.typeName.endsWith("_aggregate_fields") && c.fieldName === "count" && c.theirs === "Int" && c.ours === "Int!",
  },
  {
    name: "_and/_or of a bool_exp take non-null items in v2",
    matches: (c) =>
      c.kind === "inputField" &&
      c.typeName.endsWith("_bool_exp") &&
      (c.fieldName === "_and" || c.fieldName === "_or") &&
      c.ours === c.theirs.replace(/\]$/, "!]"),
  },
  {
    name: "on_conflict.update_columns defaults to [] in v2 (required without default in v1)",
    matches: (c) =>
      c.kind === "default" &&
      c.typeName.endsWith("_on_conflict") &&
      c.fieldName === "update_columns" &&
      c.theirs === "(none)" &&
      c.ours === "[]",
  },
  {
    name: "_delete_at_path takes a list of non-null paths in v2",
    matches: (c) =>
      c.kind === "inputField" && c.typeName.endsWith("_delete_at_path_input") && c.theirs === "[String]" && c.ours === "[String!]",
  },
  {
    name: "an async action's result has non-null id and created_at in v2",
    matches: (c) =>
      c.kind === "field" &&
      /^fields of action: "/.test(c.typeDescription ?? "") &&
      (c.fieldName === "id" || c.fieldName === "created_at") &&
      c.ours === `${c.theirs}!`,
  },
];

/** The known change a difference is, or undefined. */
export function acceptedChange(c: RuleContext & { theirs: string; ours: string }): string | undefined {
  return CHANGES.find((change) => change.matches(c))?.name;
}

/** What v2 adds over v1 for the same metadata, by feature: a type, a field or an enum value of ours absent from theirs. */
const ADDITIONS: [string, RegExp][] = [
  [
    "streaming subscriptions (<table>_stream, cursor inputs)",
    /^(subscription_root\.\w+_stream|input \w+_stream_cursor(_value)?_input|enum cursor_ordering)$/,
  ],
  ["update_<table>_many and its <table>_updates input", /^(mutation_root\.update_\w+_many|input \w+_updates)$/],
  [
    "aggregation predicates in boolean expressions (<rel>_aggregate, <table>_aggregate_bool_exp*)",
    /^(input \w+_aggregate_bool_exp(_\w+)?|\w+_bool_exp\.\w+_aggregate|enum \w+_select_column_\w+_aggregate_bool_exp_bool_(and|or)_arguments_columns)$/,
  ],
  ["POSIX regular expression operators on String", /^String_comparison_exp\._n?i?regex$/],
  ["_cast on jsonb comparisons", /^(jsonb_comparison_exp\._cast|input jsonb_cast_exp)$/],
];

/** The addition's feature, or undefined when it is none of v2's known additions. */
export function additionFeature(added: string): string | undefined {
  return ADDITIONS.find(([, pattern]) => pattern.test(added))?.[0];
}

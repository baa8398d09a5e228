/**
 * The GraphQL lists that stand for PostgreSQL array columns (`text[]` is `[String!]`, Hasura
 * v2.29+). They are told apart from the engine's other lists (`_in`, `distinct_on`, `objects`...)
 * because their values are read differently: a string given for one is a PostgreSQL array
 * literal (`"{a,b}"`), and their items are parsed as array elements, not as column values.
 */
import { GraphQLList, type GraphQLType } from "graphql";

const ARRAY_COLUMN_LISTS = new WeakSet<object>();

/** A list type for an array column's values. */
export function arrayColumnList<T extends GraphQLType>(item: T): GraphQLList<T> {
  const list = new GraphQLList(item);
  ARRAY_COLUMN_LISTS.add(list);
  return list;
}

/** Whether this (nullable) type is an array column's list. */
export function isArrayColumnList(type: unknown): boolean {
  return typeof type === "object" && type !== null && ARRAY_COLUMN_LISTS.has(type);
}

/**
 * Whether a string given for a whole array column is PostgreSQL's array text (`{a,b}`, with an
 * optional `[1:2]=` dimension prefix), which PostgreSQL reads as it is. Any other string is one
 * element: GraphQL's list coercion makes `tags: "red"` the list `["red"]`.
 */
export function isArrayLiteral(value: string): boolean {
  return /^\s*(?:(?:\[\s*[+-]?\d+\s*:\s*[+-]?\d+\s*\])+\s*=\s*)?\{/.test(value);
}

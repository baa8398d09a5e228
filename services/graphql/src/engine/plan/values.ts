/**
 * Argument values read from the AST, keeping the order of object keys as written (graphql-js
 * coercion reorders input objects by type definition, but `order_by: {b: asc, a: desc}` must
 * keep its order). Validation has already run, so shapes are trusted.
 */
import {
  type ArgumentNode,
  type GraphQLArgument,
  type GraphQLInputType,
  getNullableType,
  isInputObjectType,
  isListType,
  Kind,
  type ValueNode,
} from "graphql";
import { Slot } from "../compiler/slot.js";
import { JsonNumber, numberFromText } from "../json/number.js";
import { isArrayColumnList } from "../schema/pg-array.js";

export type Variables = Record<string, unknown>;

export function astValue(node: ValueNode, variables: Variables): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
    case Kind.FLOAT:
      // 9223372036854775807 keeps its digits (a JsonNumber) instead of becoming the nearest double.
      return numberFromText(node.value);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => astValue(v, variables));
    case Kind.OBJECT: {
      const out: Record<string, unknown> = {};
      for (const field of node.fields) {
        const value = astValue(field.value, variables);
        // An unset variable inside an object literal means the field is absent.
        if (value !== undefined) out[field.name.value] = value;
      }
      return out;
    }
  }
}

/**
 * A value brought to the shape of its type, as GraphQL's input coercion of list types does
 * (https://spec.graphql.org/October2021/#sec-List.Input-Coercion): a value that is not a list,
 * given where a list is expected, is a list of that one value; at every depth, through input
 * objects, for literals and variables alike. An array column's list is left as given: a string
 * there is a PostgreSQL array literal, and arrays.ts turns any other single value into `{v}`.
 */
export function listShaped(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (isArrayColumnList(nullable)) return value;
    const item = nullable.ofType as GraphQLInputType;
    return Array.isArray(value) ? value.map((v) => listShaped(v, item)) : [listShaped(value, item)];
  }
  if (isInputObjectType(nullable) && typeof value === "object" && !Array.isArray(value)) {
    if (value instanceof Slot || value instanceof JsonNumber) return value;
    const fields = nullable.getFields();
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[key];
      out[key] = field ? listShaped(v, field.type) : v;
    }
    return out;
  }
  return value;
}

/**
 * The field's arguments that are present (an argument bound to an unset variable is absent),
 * each shaped by its definition's type when the definitions are given.
 */
export function argumentValues(
  args: readonly ArgumentNode[] | undefined,
  variables: Variables,
  defs?: readonly GraphQLArgument[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of args ?? []) {
    const value = astValue(arg.value, variables);
    if (value === undefined) continue;
    const def = defs?.find((d) => d.name === arg.name.value);
    out[arg.name.value] = def ? listShaped(value, def.type) : value;
  }
  return out;
}

/** A value that GraphQL allows as "one item or a list" (order_by, _and, _or): always a list. */
export function asList(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

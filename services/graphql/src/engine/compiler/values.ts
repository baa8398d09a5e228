/**
 * Argument values read from the AST, keeping the order of object keys as written (graphql-js
 * coercion reorders input objects by type definition, but `order_by: {b: asc, a: desc}` must
 * keep its order). Validation has already run, so shapes are trusted.
 */
import { type ArgumentNode, Kind, type ValueNode } from "graphql";
import { numberFromText } from "../json-number.js";

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

/** The field's arguments that are present (an argument bound to an unset variable is absent). */
export function argumentValues(args: readonly ArgumentNode[] | undefined, variables: Variables): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of args ?? []) {
    const value = astValue(arg.value, variables);
    if (value !== undefined) out[arg.name.value] = value;
  }
  return out;
}

/** A value that GraphQL allows as "one item or a list" (order_by, _and, _or): always a list. */
export function asList(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * A query's variables made into plan slots before it is planned (compiler/slot.ts says how a
 * cached plan is reused): walked with their GraphQL types, leaves of scalar types other than
 * Boolean become slots; null, booleans, enum values, input object keys and list lengths stay
 * values, and go into the plan's signature.
 */
import { GraphQLBoolean, type GraphQLInputType, getNullableType, isEnumType, isInputObjectType, isListType } from "graphql";
import { Slot } from "../compiler/slot.js";
import type { Variables } from "./values.js";

function readPath(variables: Variables, path: ReadonlyArray<string | number>): unknown {
  let value: unknown = variables;
  for (const key of path) value = (value as Record<string | number, unknown>)[key];
  return value;
}

function walk(value: unknown, type: GraphQLInputType, path: Array<string | number>): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const item = nullable.ofType as GraphQLInputType;
    return Array.isArray(value) ? value.map((v, i) => walk(v, item, [...path, i])) : walk(value, item, path);
  }
  if (isInputObjectType(nullable)) {
    const fields = nullable.getFields();
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[key];
      out[key] = field ? walk(v, field.type, [...path, key]) : v;
    }
    return out;
  }
  if (isEnumType(nullable) || nullable === GraphQLBoolean) return value;
  const at = [...path];
  return new Slot(({ variables }) => readPath(variables, at));
}

export interface SlottedVariables {
  values: Variables;
  /** Equal signatures compile to the same SQL text with the same slots. */
  signature: string;
}

/** The request's variables with bindable leaves as slots, and the signature of the rest. */
export function slotVariables(variables: Variables, types: ReadonlyMap<string, GraphQLInputType>): SlottedVariables {
  const values: Variables = {};
  for (const [name, value] of Object.entries(variables)) {
    const type = types.get(name);
    values[name] = type ? walk(value, type, [name]) : value;
  }
  return { values, signature: JSON.stringify(values) };
}

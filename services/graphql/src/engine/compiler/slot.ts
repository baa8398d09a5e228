/**
 * Parameter slots: how one compiled query plan serves every request of the same operation.
 *
 * Before a query is compiled, its variables are walked with their GraphQL types. Leaves of
 * scalar types other than Boolean (strings, numbers, ids, json values...) become `Slot`s: the
 * compiler binds them as parameters without looking at them. Everything else (null, booleans,
 * enum values, the keys of input objects, the length of lists) can change the SQL text, so it
 * goes into the plan's signature. A cached plan is reused for any request whose signature is
 * equal, its slots read from that request's variables and session. Long numbers (JsonNumbers)
 * are bound as their text.
 */
import { GraphQLBoolean, type GraphQLInputType, getNullableType, isEnumType, isInputObjectType, isListType } from "graphql";
import { missingSessionVariable } from "../errors.js";
import { JsonNumber, toParam } from "../json-number.js";
import type { Session } from "../session.js";
import type { Variables } from "./values.js";

export interface SlotInput {
  variables: Variables;
  session: Session;
}

/** A value known only when a plan runs: read from the request, then transformed. */
export class Slot {
  constructor(readonly read: (input: SlotInput) => unknown) {}

  /** Slots stand for "some value" in a plan's signature. */
  toJSON(): string {
    return "\u0001";
  }
}

/** Applies `fn` now to a known value, or when the plan runs to a slot's value. */
export function mapValue(value: unknown, fn: (value: unknown) => unknown): unknown {
  return value instanceof Slot ? new Slot((input) => fn(value.read(input))) : fn(value);
}

/** A session variable read when the plan runs; a missing one is Hasura's error. */
export function sessionSlot(name: string): Slot {
  return new Slot(({ session }) => {
    const value = session.variables[name];
    if (value === undefined) throw missingSessionVariable(name);
    return value;
  });
}

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

/** A plan's parameters for one request: slots read, arrays of slots read item by item. */
export function resolveParams(params: readonly unknown[], input: SlotInput): unknown[] {
  return params.map((p) => {
    if (p instanceof Slot) return toParam(p.read(input));
    if (Array.isArray(p) && p.some((item) => item instanceof Slot || item instanceof JsonNumber))
      return p.map((item) => toParam(item instanceof Slot ? item.read(input) : item));
    return toParam(p);
  });
}

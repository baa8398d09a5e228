/**
 * `@preset(value: ..., static: Boolean)` on an argument or input field of a role's remote schema
 * document, read as Hasura's parsePresetDirective and parsePresetValue read it
 * (server/src-lib/Hasura/RemoteSchema/SchemaCache/Permission.hs, "Remote Schema Argument
 * Presets"): the value must suit the type the document gives (a scalar, an enum value of the
 * document's enum, an input object with the document's fields, a list of those, or a single value
 * where a list is expected); a string starting `x-hasura-` (any case) is a session variable read
 * at each call, unless `static: true`, and only where a scalar or an enum is expected.
 */
import { type ConstDirectiveNode, type ConstValueNode, Kind, print, type TypeDefinitionNode, type TypeNode } from "graphql";
import type { PresetValue } from "./types.js";
import { dq, type Validation } from "./validation.js";

/** The document's type of a name (its scalars, enums and input objects are what a preset may be). */
export type InputTypeLookup = (name: string) => TypeDefinitionNode | undefined;

export const isSessionVariable = (text: string) => text.toLowerCase().startsWith("x-hasura-");

function presetValue(
  v: Validation,
  lookup: InputTypeLookup,
  type: TypeNode,
  at: string,
  isStatic: boolean,
  value: ConstValueNode,
): PresetValue {
  if (type.kind === Kind.NON_NULL_TYPE) return presetValue(v, lookup, type.type, at, isStatic, value);
  if (type.kind === Kind.LIST_TYPE) {
    if (value.kind === Kind.LIST)
      return { kind: "list", values: v.each(value.values, (x) => presetValue(v, lookup, type.type, at, isStatic, x)) };
    if (value.kind === Kind.STRING && isSessionVariable(value.value))
      v.refute(`illegal preset value at ${dq(at)}. Session arguments can only be set for singleton values`);
    // A single value where a list is expected, as GraphQL's input coercion allows.
    return presetValue(v, lookup, type.type, at, isStatic, value);
  }
  const typeName = type.name.value;
  const def = lookup(typeName);
  const expected = (what: string): never => v.refute(`expected preset value ${dq(print(value))} of type ${dq(typeName)} to be ${what}`);
  switch (def?.kind) {
    case Kind.SCALAR_TYPE_DEFINITION:
      if (value.kind === Kind.ENUM || value.kind === Kind.LIST || value.kind === Kind.OBJECT) expected("a scalar value");
      if (value.kind === Kind.STRING && isSessionVariable(value.value) && !isStatic)
        return { kind: "session", variable: value.value.toLowerCase(), type: typeName, enumValues: null };
      return { kind: "literal", value };
    case Kind.ENUM_TYPE_DEFINITION: {
      const values = (def.values ?? []).map((e) => e.name.value);
      if (value.kind === Kind.ENUM) {
        if (!values.includes(value.value)) v.refute(`${dq(value.value)} not found in the enum: ${dq(typeName)}`);
        return { kind: "literal", value };
      }
      if (value.kind === Kind.STRING && isSessionVariable(value.value))
        return { kind: "session", variable: value.value.toLowerCase(), type: typeName, enumValues: values };
      return expected("an enum value");
    }
    case Kind.INPUT_OBJECT_TYPE_DEFINITION: {
      if (value.kind !== Kind.OBJECT) return expected("an input object value");
      const fields = v.each(value.fields, (f) => {
        const field = (def.fields ?? []).find((x) => x.name.value === f.name.value);
        if (!field) v.refute(`${dq(f.name.value)} does not exist in the input object ${dq(typeName)}`);
        return { name: f.name.value, value: presetValue(v, lookup, field.type, f.name.value, isStatic, f.value) };
      });
      return { kind: "object", fields };
    }
    default:
      return v.refute(`expected ${dq(typeName)} to be an input type, but it's an output type`);
  }
}

/** The preset a `@preset` directive on the input value `at` of document type `type` gives. */
export function presetFromDirective(
  v: Validation,
  lookup: InputTypeLookup,
  type: TypeNode,
  at: string,
  directive: ConstDirectiveNode,
): PresetValue {
  const args = directive.arguments ?? [];
  if (args.length === 0) v.refute("no arguments found in the preset directive");
  const value = args.find((a) => a.name.value === "value");
  if (!value) return v.refute(`preset argument "value" not found at ${dq(at)}`);
  const staticArg = args.find((a) => a.name.value === "static");
  let isStatic = false;
  if (staticArg) {
    if (staticArg.value.kind !== Kind.BOOLEAN) v.refute("expected preset static value to be a Boolean value");
    else isStatic = staticArg.value.value;
  }
  return presetValue(v, lookup, type, at, isStatic, value.value);
}

/**
 * Compares a reference SDL (MetaGame's committed `schema.graphql`, printed by Hasura 1.3.3) with
 * the schema our engine serves: every named type of theirs, every field with its arguments and
 * type, every input field and every enum value must be in ours and typed the same. A difference
 * is either one of the known v1 → v2 changes (each named, with the rule that recognises it) or a
 * failure. What ours has and theirs has not is listed as additions.
 */
import {
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
} from "graphql";
import { acceptedChange } from "./schema-diff-rules.js";

export interface Difference {
  /** `Type.field`, `Type.field(arg)` or `Type` */
  where: string;
  theirs: string;
  ours: string;
  /** The known v1 → v2 change it is, when it is one. */
  accepted?: string;
}

export interface SchemaDiff {
  compared: { types: number; fields: number; arguments: number; inputFields: number; enumValues: number };
  /** Types of theirs that no root reaches and ours lacks: v1 printed a table's every type, v2 only the reachable ones. */
  unreachable: string[];
  missing: string[];
  differences: Difference[];
  added: string[];
}

const kindOf = (type: GraphQLNamedType): string =>
  isObjectType(type)
    ? "object"
    : isInputObjectType(type)
      ? "input"
      : isEnumType(type)
        ? "enum"
        : isScalarType(type)
          ? "scalar"
          : isInterfaceType(type)
            ? "interface"
            : isUnionType(type)
              ? "union"
              : "?";

const ownTypes = (schema: GraphQLSchema) =>
  Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith("__") && !isSpecifiedScalarType(t));

/** The types reachable from the schema's roots through fields, arguments, input fields, interfaces and union members. */
export function reachableTypes(schema: GraphQLSchema): Set<string> {
  const seen = new Set<string>();
  const pending: GraphQLNamedType[] = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(
    (t): t is NonNullable<typeof t> => Boolean(t),
  );
  while (pending.length > 0) {
    const type = pending.pop() as GraphQLNamedType;
    if (seen.has(type.name)) continue;
    seen.add(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      pending.push(...type.getInterfaces());
      for (const field of Object.values(type.getFields())) {
        pending.push(getNamedType(field.type));
        for (const arg of field.args) pending.push(getNamedType(arg.type));
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) pending.push(getNamedType(field.type));
    } else if (isUnionType(type)) pending.push(...type.getTypes());
  }
  return seen;
}

export function diffSchemas(theirs: GraphQLSchema, ours: GraphQLSchema): SchemaDiff {
  const diff: SchemaDiff = {
    compared: { types: 0, fields: 0, arguments: 0, inputFields: 0, enumValues: 0 },
    unreachable: [],
    missing: [],
    differences: [],
    added: [],
  };
  const differ = (where: string, theirText: string, ourText: string, context: RuleContext) => {
    if (theirText === ourText) return;
    const accepted = acceptedChange({ ...context, theirs: theirText, ours: ourText });
    diff.differences.push({ where, theirs: theirText, ours: ourText, ...(accepted ? { accepted } : {}) });
  };
  const reachable = reachableTypes(theirs);
  const ourMap = ours.getTypeMap();
  for (const their of ownTypes(theirs)) {
    const our = ourMap[their.name];
    if (!our) {
      if (reachable.has(their.name)) diff.missing.push(`${kindOf(their)} ${their.name}`);
      else diff.unreachable.push(their.name);
      continue;
    }
    diff.compared.types++;
    if (kindOf(their) !== kindOf(our)) {
      differ(their.name, kindOf(their), kindOf(our), { kind: "type", typeName: their.name });
      continue;
    }
    if ((isObjectType(their) || isInterfaceType(their)) && (isObjectType(our) || isInterfaceType(our)))
      compareFields(diff, differ, their, their.getFields(), our.getFields());
    else if (isInputObjectType(their) && isInputObjectType(our))
      compareInputFields(diff, differ, their.name, their.getFields(), our.getFields());
    else if (isEnumType(their) && isEnumType(our)) {
      const ourValues = new Set(our.getValues().map((v) => v.name));
      for (const value of their.getValues()) {
        diff.compared.enumValues++;
        if (!ourValues.has(value.name)) diff.missing.push(`${their.name}.${value.name}`);
      }
      const theirValues = new Set(their.getValues().map((v) => v.name));
      for (const value of our.getValues()) if (!theirValues.has(value.name)) diff.added.push(`${our.name}.${value.name}`);
    }
  }
  const theirMap = theirs.getTypeMap();
  for (const our of ownTypes(ours)) if (!theirMap[our.name]) diff.added.push(`${kindOf(our)} ${our.name}`);
  return diff;
}

export interface RuleContext {
  kind: "type" | "field" | "argument" | "inputField" | "default";
  typeName: string;
  /** The type's description in their SDL (Hasura's descriptions say what generated a type). */
  typeDescription?: string | null;
  fieldName?: string;
  argName?: string;
}

type Differ = (where: string, theirs: string, ours: string, context: RuleContext) => void;

function compareFields(
  diff: SchemaDiff,
  differ: Differ,
  type: GraphQLNamedType,
  theirs: Record<string, GraphQLField<unknown, unknown>>,
  ours: Record<string, GraphQLField<unknown, unknown>>,
): void {
  const typeName = type.name;
  for (const field of Object.values(theirs)) {
    const where = `${typeName}.${field.name}`;
    const our = ours[field.name];
    diff.compared.fields++;
    if (!our) {
      diff.missing.push(where);
      continue;
    }
    differ(where, String(field.type), String(our.type), {
      kind: "field",
      typeName,
      typeDescription: type.description,
      fieldName: field.name,
    });
    for (const arg of field.args) {
      diff.compared.arguments++;
      const ourArg = our.args.find((a) => a.name === arg.name);
      const argWhere = `${where}(${arg.name})`;
      if (!ourArg) {
        diff.missing.push(argWhere);
        continue;
      }
      const context = { typeName, fieldName: field.name, argName: arg.name };
      differ(argWhere, String(arg.type), String(ourArg.type), { kind: "argument", ...context });
      differ(`${argWhere} default`, printDefault(arg.defaultValue), printDefault(ourArg.defaultValue), { kind: "default", ...context });
    }
    for (const arg of our.args)
      if (!field.args.some((a) => a.name === arg.name)) diff.added.push(`${where}(${arg.name}: ${String(arg.type)})`);
  }
  for (const name of Object.keys(ours)) if (!theirs[name]) diff.added.push(`${typeName}.${name}`);
}

function compareInputFields(
  diff: SchemaDiff,
  differ: Differ,
  typeName: string,
  theirs: Record<string, GraphQLInputField>,
  ours: Record<string, GraphQLInputField>,
): void {
  for (const field of Object.values(theirs)) {
    const where = `${typeName}.${field.name}`;
    const our = ours[field.name];
    diff.compared.inputFields++;
    if (!our) {
      diff.missing.push(where);
      continue;
    }
    const context = { typeName, fieldName: field.name };
    differ(where, String(field.type), String(our.type), { kind: "inputField", ...context });
    differ(`${where} default`, printDefault(field.defaultValue), printDefault(our.defaultValue), { kind: "default", ...context });
  }
  for (const name of Object.keys(ours)) if (!theirs[name]) diff.added.push(`${typeName}.${name}`);
}

const printDefault = (value: unknown): string => (value === undefined ? "(none)" : JSON.stringify(value));

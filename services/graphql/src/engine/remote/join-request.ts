/**
 * The one request a remote relationship makes for every row of a response level
 * (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/):
 * each distinct set of lhs values is one aliased copy of the relationship's path (`f0: user(id: 1)
 * {...}`, `f1: user(id: 2) {...}`) with the fixed arguments' `"$column"` templates filled from
 * that row, the caller's own arguments and selections on the last field. Hasura batches a remote
 * join's rows into one query the same way, aliased per join argument (buildRemoteSchemaCall in
 * server/src-lib/Hasura/GraphQL/Execute/RemoteJoin/RemoteSchema.hs), and lays the query out as
 * its printer does (query-text.ts).
 */
import { Kind, OperationTypeNode, type SelectionSetNode, type ValueNode } from "graphql";
import { JsonNumber, jsonText } from "../json/number.js";
import type { RemoteJoinNode } from "../plan/types.js";
import { argumentsText, directivesText, operationText, selectionSetText } from "./query-text.js";

/**
 * The alias of the distinct set of lhs values numbered `i`. Hasura numbers them across all the
 * joins of a root field's answer in the order it meets them (collectJoinArguments in
 * server/src-lib/Hasura/GraphQL/Execute/RemoteJoin/Join.hs); a remote's errors name them in
 * their `path`.
 */
export const joinAlias = (i: number): string => `f${i}`;

/** A JSON value as a GraphQL literal. */
function literal(value: unknown): ValueNode {
  if (value === null || value === undefined) return { kind: Kind.NULL };
  if (value instanceof JsonNumber)
    return /^-?\d+$/.test(value.text) ? { kind: Kind.INT, value: value.text } : { kind: Kind.FLOAT, value: value.text };
  if (typeof value === "boolean") return { kind: Kind.BOOLEAN, value };
  if (typeof value === "number")
    return Number.isInteger(value) ? { kind: Kind.INT, value: String(value) } : { kind: Kind.FLOAT, value: String(value) };
  if (typeof value === "string") return { kind: Kind.STRING, value };
  if (Array.isArray(value)) return { kind: Kind.LIST, values: value.map(literal) };
  return {
    kind: Kind.OBJECT,
    fields: Object.entries(value as Record<string, unknown>).map(([name, v]) => ({
      kind: Kind.OBJECT_FIELD,
      name: { kind: Kind.NAME, value: name },
      value: literal(v),
    })),
  };
}

/** A fixed argument's template with the row's values for its `"$column"` strings. */
function filled(template: unknown, row: Record<string, unknown>): unknown {
  if (typeof template === "string" && template.startsWith("$")) return row[template.slice(1)] ?? null;
  if (Array.isArray(template)) return template.map((t) => filled(t, row));
  if (template !== null && typeof template === "object")
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, filled(v, row)]));
  return template;
}

function argumentsOf(args: Record<string, unknown>, row: Record<string, unknown>) {
  return Object.entries(args).map(([name, template]) => ({
    kind: Kind.ARGUMENT as const,
    name: { kind: Kind.NAME as const, value: name },
    value: literal(filled(template, row)),
  }));
}

/** A value the caller gave, its variables replaced by their values (to be merged with a fixed value). */
function resolved(value: ValueNode, variables: Record<string, unknown>): ValueNode {
  if (value.kind === Kind.VARIABLE) return literal(variables[value.name.value]);
  if (value.kind === Kind.LIST) return { ...value, values: value.values.map((v) => resolved(v, variables)) };
  if (value.kind === Kind.OBJECT) return { ...value, fields: value.fields.map((f) => ({ ...f, value: resolved(f.value, variables) })) };
  return value;
}

/**
 * A fixed input object merged with the fields the caller gave for it (the relationship's own
 * values win), as Hasura merges a remote join's arguments with the user's.
 */
function merged(fixed: ValueNode, given: ValueNode, variables: Record<string, unknown>): ValueNode {
  const value = resolved(given, variables);
  if (fixed.kind === Kind.LIST && value.kind === Kind.LIST && fixed.values.length === 1 && value.values.length === 1)
    return { ...fixed, values: [merged(fixed.values[0] as ValueNode, value.values[0] as ValueNode, variables)] };
  if (fixed.kind !== Kind.OBJECT || value.kind !== Kind.OBJECT) return fixed;
  const fields = [...fixed.fields];
  for (const f of value.fields) {
    const i = fields.findIndex((x) => x.name.value === f.name.value);
    if (i < 0) fields.push(f);
    else
      fields[i] = {
        ...(fields[i] as (typeof fields)[number]),
        value: merged((fields[i] as (typeof fields)[number]).value, f.value, variables),
      };
  }
  return { ...fixed, fields };
}

/** The last field's arguments: the fixed ones for this row, merged with the caller's. */
function lastArguments(node: RemoteJoinNode, fixed: ReturnType<typeof argumentsOf>) {
  const given = node.field.arguments ?? [];
  const out = fixed.map((a) => {
    const same = given.find((g) => g.name.value === a.name.value);
    return same ? { ...a, value: merged(a.value, same.value, node.values) } : a;
  });
  return [...out, ...given.filter((g) => !fixed.some((a) => a.name.value === g.name.value))];
}

/** The variables `value` names. */
function noteVariables(value: ValueNode, into: Set<string>): void {
  if (value.kind === Kind.VARIABLE) into.add(value.name.value);
  else if (value.kind === Kind.LIST) for (const v of value.values) noteVariables(v, into);
  else if (value.kind === Kind.OBJECT) for (const f of value.fields) noteVariables(f.value, into);
}

/** The variables a selection set (with its directives and arguments) names. */
function selectionVariables(set: SelectionSetNode | undefined, into: Set<string>): void {
  for (const s of set?.selections ?? []) {
    for (const d of s.directives ?? []) for (const a of d.arguments ?? []) noteVariables(a.value, into);
    if (s.kind === Kind.FIELD) for (const a of s.arguments ?? []) noteVariables(a.value, into);
    if (s.kind !== Kind.FRAGMENT_SPREAD) selectionVariables(s.selectionSet, into);
  }
}

/**
 * The request body for `rows`: each distinct set of lhs values with the number of its alias. The
 * copies differ only in their arguments, so the field's selection is printed once (its layout is
 * query-text.ts's, Hasura's).
 */
export function joinRequest(node: RemoteJoinNode, rows: Array<{ id: number; lhs: Record<string, unknown> }>): string {
  const steps = node.rel.path;
  const last = steps.length - 1;
  const tail = `${directivesText(node.field.directives)} ${selectionSetText(node.field.selectionSet)}`;
  // Variables merged into a fixed input object are sent as their values: only those still named stay,
  // the same for every row (its values change, not which arguments the caller gave).
  const used = new Set<string>();
  selectionVariables(node.field.selectionSet, used);
  for (const d of node.field.directives ?? []) for (const a of d.arguments ?? []) noteVariables(a.value, used);
  const selections = rows.map(({ id, lhs }, n) => {
    let text = "";
    for (let i = last; i >= 0; i--) {
      const step = steps[i] as (typeof steps)[number];
      const args = argumentsOf(step.arguments, lhs);
      if (i === last) {
        const sent = lastArguments(node, args);
        if (n === 0) for (const a of sent) noteVariables(a.value, used);
        text = `${node.field.name.value}${argumentsText(sent)}${tail}`;
      } else text = `${step.field}${argumentsText(args)} { ${text} }`;
    }
    return `${joinAlias(id)}: ${text}`;
  });
  const variableDefinitions = node.variables.filter((d) => used.has(d.variable.name.value));
  const values = Object.fromEntries(Object.entries(node.values).filter(([name]) => used.has(name)));
  const query = operationText({ operation: OperationTypeNode.QUERY, variableDefinitions }, selections);
  return jsonText({ query, ...(Object.keys(values).length > 0 ? { variables: values } : {}) });
}

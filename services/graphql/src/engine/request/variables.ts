/**
 * A request's variables, checked as Hasura checks them before any SQL runs: a required one must
 * be given, a value nested past what the engine walks is refused, and each value is parsed where
 * the operation uses it (errors point there, coercion.ts).
 */
import { type DocumentNode, GraphQLNonNull, type GraphQLSchema, isNonNullType, Kind, type OperationDefinitionNode } from "graphql";
import { missingVariable, nestedTooDeeply } from "../errors/index.js";
import { astValue, type Variables } from "../plan/values.js";
import { checkJsonValue } from "./coercion.js";
import { type VariableUsage, variableUsages } from "./coercion-rule.js";

/**
 * How deep (in JSON levels) a variable's value may nest: the engine's walks over values recurse,
 * and about 3,000 levels (`_and` in `_and` 1,500 deep) overflow the stack; half of that is kept.
 */
const MAX_INPUT_DEPTH = 1500;

/** The nesting depth of a JSON value, measured without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_INPUT_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Where the operation uses its variables, computed once per operation by the caller's cache. */
export type UsagesOf = (compute: () => VariableUsage[]) => VariableUsage[];

export function checkVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  raw: unknown,
  usagesOf: UsagesOf,
): Variables {
  const inputs = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(inputs)) if (depthOf(value) > MAX_INPUT_DEPTH) throw nestedTooDeeply(name, MAX_INPUT_DEPTH);
  const out: Variables = {};
  const required = new Set<string>();
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (def.type.kind === Kind.NON_NULL_TYPE) required.add(name);
    if (name in inputs) out[name] = inputs[name];
    else if (def.defaultValue) out[name] = astValue(def.defaultValue, {});
    else if (def.type.kind === Kind.NON_NULL_TYPE) throw missingVariable(name);
  }
  if (Object.keys(inputs).length === 0) return out;
  for (const usage of usagesOf(() => variableUsages(schema, document, operation))) {
    if (!(usage.name in inputs)) continue;
    const type = required.has(usage.name) && !isNonNullType(usage.type) ? new GraphQLNonNull(usage.type) : usage.type;
    checkJsonValue(inputs[usage.name], type, usage.mode, usage.path);
  }
  return out;
}

/**
 * Classifies one response of the engine. A failure is an `unexpected` error, any other refusal
 * of a valid request, `data` that does not conform to the introspected types (null for a
 * non-null field, a value of the wrong scalar, a missing or extra key), or a slow request.
 * Acceptable: data, or (for mutations) a constraint violation or failed permission check caused
 * by the data the generator chose.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  valueFromASTUntyped,
} from "graphql";

export const SLOW_MS = 1000;

/** Errors that data causes (not the request's shape): accepted for mutations only. */
const DATA_CAUSED_CODES = new Set(["constraint-violation", "permission-error"]);
/** jsonb operators applied to a value of the wrong kind (`_delete_elem` on an object, a key path into an array, ...). */
const DATA_CAUSED_MESSAGES = [
  /cannot delete from (scalar|object using integer index)/,
  /cannot delete path in scalar/,
  /path element at position \d+ is not an integer/,
];

export interface Verdict {
  /** The failure class (a short stable description), or null when the response is acceptable. */
  failure: string | null;
  detail?: string;
  /** For an accepted response: `data`, or the error code the data caused. */
  outcome?: string;
}

/** Words of a message that vary between instances (quoted names, numbers) replaced, to group failures. */
export function normalise(message: string): string {
  return message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/-?\d+(\.\d+)?/g, "N")
    .slice(0, 160);
}

export function classify(
  schema: GraphQLSchema,
  request: { query: string; variables: Record<string, unknown>; kind: "query" | "mutation"; operationName: string | undefined },
  body: { data?: unknown; errors?: Array<{ message?: string; extensions?: { code?: string } }> },
  elapsedMs: number,
  stringify = false,
): Verdict {
  const { query, variables, kind, operationName } = request;
  if (elapsedMs > SLOW_MS) return { failure: "slow (over 1 s)", detail: `${Math.round(elapsedMs)} ms` };
  if (body.errors) {
    const error = body.errors[0] ?? {};
    const code = error.extensions?.code ?? "no code";
    const message = error.message ?? "";
    if (kind === "mutation" && DATA_CAUSED_CODES.has(code))
      return { failure: null, outcome: `${code}: ${message.replace(/\d+/g, "N").slice(0, 140)}` };
    if (kind === "mutation" && code === "data-exception" && DATA_CAUSED_MESSAGES.some((re) => re.test(message)))
      return { failure: null, outcome: "jsonb operator on a value of another kind" };
    if ("data" in body) return { failure: "errors and data together" };
    return { failure: `${code}: ${normalise(message)}` };
  }
  if (!body.data || typeof body.data !== "object") return { failure: "no data and no errors" };
  const problems: string[] = [];
  const document = parse(query);
  const operation = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  ) as OperationDefinitionNode;
  const root = (kind === "mutation" ? schema.getMutationType() : schema.getQueryType()) as GraphQLObjectType;
  // Directives and limits read the variables as coerced: defaults of absent ones included.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables).coerced ?? variables;
  new Conformance(document, coerced, problems, stringify).selection(root, operation.selectionSet, body.data, "data");
  if (problems.length === 0) return { failure: null, outcome: `${kind} data` };
  return { failure: `nonconforming data: ${problems[0]?.replace(/ at .*/, "")}`, detail: problems.join("; ") };
}

/** Walks the response along the operation's selections and checks each value against the schema. */
class Conformance {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();

  constructor(
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
    private readonly problems: string[],
    private readonly stringify: boolean,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  selection(type: GraphQLObjectType, set: SelectionSetNode, value: unknown, path: string): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.problems.push(`object expected for ${type.name} at ${path}`);
      return;
    }
    const record = value as Record<string, unknown>;
    const expected = new Set<string>();
    this.collect(type, set, record, path, expected);
    for (const key of Object.keys(record)) if (!expected.has(key)) this.problems.push(`unrequested key at ${path}.${key}`);
  }

  private collect(type: GraphQLObjectType, set: SelectionSetNode, record: Record<string, unknown>, path: string, seen: Set<string>): void {
    for (const sel of set.selections) {
      if (!this.included(sel.directives ?? [])) continue;
      if (sel.kind === Kind.INLINE_FRAGMENT) this.collect(type, sel.selectionSet, record, path, seen);
      else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = this.fragments.get(sel.name.value);
        if (fragment) this.collect(type, fragment.selectionSet, record, path, seen);
      } else {
        const key = sel.alias?.value ?? sel.name.value;
        const at = `${path}.${key}`;
        seen.add(key);
        if (!(key in record)) {
          this.problems.push(`missing key at ${at}`);
          continue;
        }
        if (sel.name.value === "__schema" || sel.name.value === "__type") continue;
        if (sel.name.value === "__typename") {
          if (record[key] !== type.name) this.problems.push(`__typename ${JSON.stringify(record[key])} for ${type.name} at ${at}`);
          continue;
        }
        const def = type.getFields()[sel.name.value];
        if (!def) {
          this.problems.push(`unknown field at ${at}`);
          continue;
        }
        this.value(def.type, sel.selectionSet, record[key], at);
        const limit = sel.arguments?.find((a) => a.name.value === "limit");
        const max = limit ? valueFromASTUntyped(limit.value, this.variables) : null;
        const rows = record[key];
        if (typeof max === "number" && Array.isArray(rows) && rows.length > max)
          this.problems.push(`${rows.length} rows over limit ${max} at ${at}`);
      }
    }
  }

  private included(directives: ReadonlyArray<{ name: { value: string }; arguments?: ReadonlyArray<{ value: unknown }> }>): boolean {
    for (const d of directives) {
      const arg = d.arguments?.[0]?.value;
      const on = arg ? valueFromASTUntyped(arg as Parameters<typeof valueFromASTUntyped>[0], this.variables) === true : true;
      if (d.name.value === "skip" && on) return false;
      if (d.name.value === "include" && !on) return false;
    }
    return true;
  }

  private value(type: GraphQLOutputType, set: SelectionSetNode | undefined, value: unknown, path: string): void {
    if (isNonNullType(type)) {
      if (value === null || value === undefined) this.problems.push(`null for non-null ${String(type)} at ${path}`);
      else this.value(type.ofType, set, value, path);
      return;
    }
    if (value === null) return;
    if (isListType(type)) {
      if (!Array.isArray(value)) this.problems.push(`list expected for ${String(type)} at ${path}`);
      else for (const [i, item] of value.entries()) this.value(type.ofType, set, item, `${path}[${i}]`);
      return;
    }
    const named = getNamedType(type);
    if (isObjectType(named) && set) this.selection(named, set, value, path);
    else if (isEnumType(named)) {
      if (!named.getValues().some((v) => v.name === value))
        this.problems.push(`${JSON.stringify(value)} is no ${named.name} value at ${path}`);
    } else if (isScalarType(named) && !scalarConforms(named.name, value, this.stringify))
      this.problems.push(`${JSON.stringify(value)} is no ${named.name} at ${path}`);
  }
}

/** Output shapes per scalar: built-ins as the spec says; PostgreSQL scalars as Hasura prints them. */
function scalarConforms(name: string, value: unknown, stringify: boolean): boolean {
  // Stringified: Hasura's "big numbers" print as strings (https://hasura.io/docs/latest/deployment/graphql-engine-flags/reference/ "stringify numeric types").
  if (stringify && (name === "bigint" || name === "numeric" || name === "float8")) return typeof value === "string";
  if (stringify && name === "Float" && typeof value === "string") return true;
  switch (name) {
    case "Int":
      return Number.isInteger(value) && (value as number) >= -2147483648 && (value as number) <= 2147483647;
    case "Float":
      return typeof value === "number" || value === "NaN" || value === "Infinity" || value === "-Infinity";
    case "String":
    case "ID":
      return typeof value === "string";
    case "Boolean":
      return typeof value === "boolean";
    case "smallint":
    case "bigint":
    case "numeric":
    case "float8":
      return typeof value === "number" || (typeof value === "string" && /^(-?\d+(\.\d+)?(e[+-]?\d+)?|NaN|-?Infinity)$/i.test(value));
    case "json":
    case "jsonb":
      return value !== undefined;
    default:
      return typeof value === "string";
  }
}

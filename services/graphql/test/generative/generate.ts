/**
 * Random valid operations built from a role's introspected schema: every root field, every
 * argument, nested input objects, lists given as a single value, explicit nulls, values as
 * literals or variables (also nested inside object literals), fragments, aliases, __typename,
 * @skip/@include. Beyond GraphQL typing it follows only the rules Hasura adds (see `rules`):
 * non-null comparison operands, distinct_on leading order_by, update operators on disjoint
 * columns, and columns a nested insert fills; values come from values.ts.
 */
import {
  GraphQLBoolean,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLList,
  GraphQLNonNull,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from "graphql";
import { JsonNumber } from "../../src/engine/json/number.js";
import type { Rng } from "./prng.js";
import type { Knowledge } from "./schemas.js";
import { type Purpose, scalarValue } from "./values.js";

/** An input value before it is written as a literal or a variable. `type` is the position's type. */
export type Value = (
  | { kind: "null"; type: GraphQLInputType }
  | { kind: "scalar"; type: GraphQLInputType; json: unknown }
  | { kind: "enum"; type: GraphQLInputType; name: string }
  | { kind: "list"; type: GraphQLInputType; items: Value[] }
  | { kind: "object"; type: GraphQLInputType; fields: Array<[string, Value]> }
) & {
  /** Another valid value for the same position (scalar positions only: changing it keeps every rule). */
  again?: () => unknown;
  /** Positions with the same context: a variable declared for one may serve the others. */
  context?: string;
};

type Make = (type: GraphQLInputType, name: string, parent: GraphQLInputObjectType) => Value;

export interface Operation {
  kind: "query" | "mutation";
  query: string;
  variables: Record<string, unknown>;
  /** Set when the document holds other operations too. */
  operationName?: string;
  /** Other variables for the same query (new values of scalar variables), or null when it has none to change. */
  vary: () => Record<string, unknown> | null;
}

const UPDATE_OPERATORS = ["_set", "_inc", "_append", "_prepend", "_delete_key", "_delete_elem", "_delete_at_path"];
const PATTERN: Record<string, Purpose> = {
  _like: "like",
  _nlike: "like",
  _ilike: "like",
  _nilike: "like",
  _regex: "regex",
  _nregex: "regex",
  _iregex: "regex",
  _niregex: "regex",
  _similar: "similar",
  _nsimilar: "similar",
  _has_key: "jsonKey",
  _has_keys_any: "jsonKey",
  _has_keys_all: "jsonKey",
};

/** How often each construct appears; the defaults keep requests small. */
const P = { variable: 0.2, nestedVariable: 0.06, explicitNull: 0.06, singleton: 0.15, alias: 0.15, typename: 0.1 };

export class OperationGenerator {
  private variableDefs: string[] = [];
  private variables: Record<string, unknown> = {};
  private readonly regenerate = new Map<string, () => unknown>();
  private readonly declared = new Map<string, string>();
  private fragments: string[] = [];
  private counter = 0;

  /** `type.field` of every json (not jsonb) column: PostgreSQL has no equality or ordering for json. */
  private readonly jsonColumns = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rng: Rng,
    private readonly knowledge: Knowledge,
  ) {
    for (const type of Object.values(schema.getTypeMap()))
      if (isObjectType(type))
        for (const f of Object.values(type.getFields()))
          if (getNamedType(f.type).name === "json") this.jsonColumns.add(`${type.name}.${f.name}`);
  }

  generate(): Operation {
    const mutation = this.schema.getMutationType();
    const kind = mutation && this.rng.chance(0.35) ? "mutation" : "query";
    const root = (kind === "mutation" ? mutation : this.schema.getQueryType()) as GraphQLObjectType;
    const fields = Object.values(root.getFields()).filter((f) => !f.name.startsWith("__"));
    const chosen = this.rng.some(fields, kind === "mutation" ? this.rng.between(1, 2) : this.rng.between(1, 3));
    const used = new Set<string>();
    const parts = this.fields(chosen, 0, used);
    if (this.rng.chance(P.typename)) parts.push("__typename");
    // Introspection next to data fields (graphql-js answers those requests).
    if (kind === "query" && this.rng.chance(0.04)) {
      const names = Object.keys(this.schema.getTypeMap()).filter((n) => !n.startsWith("__"));
      parts.push(
        this.rng.chance(0.5) ? `__type(name: ${JSON.stringify(this.rng.pick(names))}) { name kind }` : "__schema { queryType { name } }",
      );
    }
    const body = this.wrapSelections(root, parts, 0);
    const defs = this.variableDefs.length > 0 ? `(${this.variableDefs.join(", ")})` : "";
    const name = this.rng.chance(0.5) ? ` Op${this.counter}` : "";
    const head = name || defs || kind === "mutation" ? `${kind}${name}${defs} ` : "";
    // Sometimes another operation in the document, so the request must name the one to run.
    const other = name && this.rng.chance(0.1) ? [`query Other${this.counter} { __typename }`] : [];
    const vary = () => {
      if (this.regenerate.size === 0) return null;
      const next = { ...this.variables };
      for (const [name, again] of this.regenerate) next[name] = again();
      return next;
    };
    const query = [`${head}{ ${body} }`, ...this.fragments, ...other].join("\n");
    return { kind, query, variables: this.variables, vary, ...(other.length > 0 ? { operationName: name.trim() } : {}) };
  }

  private fresh(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  // ---- selections ----

  /** Sometimes moves some selections into an inline or named fragment on the same type. */
  private wrapSelections(type: GraphQLObjectType, parts: string[], depth: number): string {
    if (parts.length > 1 && this.rng.chance(0.15)) {
      const cut = this.rng.between(1, parts.length - 1);
      const moved = parts.splice(cut);
      if (this.rng.chance(0.5)) parts.push(`... on ${type.name}${this.directive()} { ${moved.join(" ")} }`);
      else {
        const name = this.fresh("F");
        this.fragments.push(`fragment ${name} on ${type.name} { ${moved.join(" ")} }`);
        parts.push(`...${name}${this.directive()}`);
      }
    }
    if (depth > 0 && this.rng.chance(0.05)) parts.push(`... @include(if: true) { __typename }`);
    return parts.join(" ");
  }

  private selection(type: GraphQLObjectType, depth: number): string {
    const fields = Object.values(type.getFields());
    const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
    const pool = depth >= 3 ? leaves : fields;
    const parts = this.fields(this.rng.some(pool.length > 0 ? pool : fields, this.rng.between(1, 4)), depth, new Set<string>());
    if (this.rng.chance(P.typename)) parts.push(this.rng.chance(0.5) ? "__typename" : `${this.alias(true)}__typename`);
    return this.wrapSelections(type, parts, depth);
  }

  /**
   * The chosen fields; sometimes one twice: a leaf again as it is (GraphQL merges the two), or
   * under an alias with arguments of its own.
   */
  private fields(chosen: Array<GraphQLField<unknown, unknown>>, depth: number, used: Set<string>): string[] {
    const parts: string[] = [];
    for (const f of chosen) {
      parts.push(this.field(f, depth, used));
      if (!this.rng.chance(0.06)) continue;
      const plain = isLeafType(getNamedType(f.type)) && f.args.length === 0;
      if (plain) used.add(f.name);
      parts.push(plain ? f.name : this.field(f, depth, used));
    }
    return parts;
  }

  private alias(force = false): string {
    return force || this.rng.chance(P.alias) ? `${this.fresh("a")}: ` : "";
  }

  /** One field with its arguments, directives and sub-selection; response keys stay unique in a selection set. */
  private field(def: GraphQLField<unknown, unknown>, depth: number, used: Set<string>): string {
    const alias = this.alias(used.has(def.name));
    used.add(alias ? alias.slice(0, -2) : def.name);
    const args = this.arguments(def, depth);
    const named = getNamedType(def.type);
    const sub = isObjectType(named) ? ` { ${this.selection(named, depth + 1)} }` : "";
    return `${alias}${def.name}${args}${this.directive()}${sub}`;
  }

  private directive(): string {
    if (!this.rng.chance(0.08)) return "";
    const name = this.rng.pick(["skip", "include"]);
    const value = this.rng.chance(0.5);
    if (this.rng.chance(0.4)) {
      const again = () => this.rng.chance(0.5);
      return ` @${name}(if: ${this.declare(new GraphQLNonNull(GraphQLBoolean), value, { kind: "scalar", type: GraphQLBoolean, json: value, again })})`;
    }
    return ` @${name}(if: ${value})`;
  }

  // ---- arguments ----

  private arguments(def: GraphQLField<unknown, unknown>, depth: number): string {
    const values: Array<[string, Value]> = [];
    for (const arg of def.args) {
      const required = isNonNullType(arg.type);
      // Lists of rows always get a limit, to keep results small.
      const forced = arg.name === "limit" && isListType(getNullableType(def.type));
      if (!required && !forced && !this.rng.chance(0.4)) continue;
      values.push([arg.name, this.input(arg.type, arg.name, depth, null, rules.nullableArgument(arg.name))]);
    }
    rules.distinctOnLeadsOrderBy(values);
    if (values.some(([n]) => UPDATE_OPERATORS.includes(n)))
      rules.disjointOperators(values, this.rng, def.args.find((a) => a.name === "_set")?.type, this.make);
    if (values.length === 0) return "";
    return `(${values.map(([n, v]) => `${n}: ${this.render(v, P.variable)}`).join(", ")})`;
  }

  /** A value for a position of type `type`; `name` is the argument or input field it is for. */
  input(type: GraphQLInputType, name: string, depth: number, parent: GraphQLInputObjectType | null, nullable = false): Value {
    const value = this.inputValue(type, name, depth, parent, nullable);
    const named = getNamedType(type);
    if (isScalarType(named)) {
      value.again = () => toJson(this.inputValue(type, name, depth, parent, nullable));
      value.context = `${String(type)} ${name} ${parent?.name ?? ""} ${nullable}`;
    }
    return value;
  }

  private inputValue(type: GraphQLInputType, name: string, depth: number, parent: GraphQLInputObjectType | null, nullable: boolean): Value {
    if (nullable && !isNonNullType(type) && this.rng.chance(P.explicitNull)) return { kind: "null", type };
    const inner = getNullableType(type) as GraphQLInputType;
    if (isListType(inner)) {
      const itemType = inner.ofType as GraphQLInputType;
      // GraphQL input coercion: a single value where a list is expected is a list of one.
      // (Not for a list of lists, nor of JSON values: `[x]` there is read as the outer list.)
      const ambiguous = isListType(getNullableType(itemType)) || ["json", "jsonb"].includes(getNamedType(itemType).name);
      if (!ambiguous && this.rng.chance(P.singleton)) return { ...this.input(itemType, name, depth, parent), type };
      const count = depth > 2 ? this.rng.between(0, 1) : this.rng.between(0, 3);
      return { kind: "list", type, items: Array.from({ length: count }, () => this.input(itemType, name, depth + 1, parent)) };
    }
    if (isEnumType(inner)) {
      const values = inner.getValues().filter((v) => !this.isJsonColumn(inner.name, "_select_column", v.name));
      return { kind: "enum", type, name: this.rng.pick(values.length > 0 ? values : inner.getValues()).name };
    }
    if (isScalarType(inner)) {
      const json = scalarValue(this.rng, inner.name, purposeOf(name, parent), this.knowledge.jsonKeys);
      if (json === undefined) throw new Error(`no values known for scalar ${inner.name}`);
      // A JSON null is a GraphQL null: only where null is allowed.
      if (json === null && !nullable) return this.input(type, name, depth, parent);
      return { kind: "scalar", type, json };
    }
    return this.object(inner as GraphQLInputObjectType, type, depth);
  }

  private object(objectType: GraphQLInputObjectType, type: GraphQLInputType, depth: number): Value {
    const name = objectType.name;
    const all = Object.values(objectType.getFields()).filter((f) => rules.usable(name, f.name, (t, s, c) => this.isJsonColumn(t, s, c)));
    const demanded = this.knowledge.requiredInputs[name] ?? [];
    const required = all.filter((f) => isNonNullType(f.type) || demanded.includes(f.name));
    // Deep inside recursive inputs (bool_exp, nested inserts) only leaf-typed fields are added.
    const optional = all.filter((f) => !required.includes(f) && (depth < 3 || isLeafType(getNamedType(f.type))));
    const max = name.endsWith("_insert_input") ? this.rng.between(1, 6) : this.rng.between(0, 2);
    // An aggregation predicate holds exactly one aggregate function (Hasura: "exactly one predicate should be specified").
    let chosen = name.endsWith("_aggregate_bool_exp") ? this.rng.some(all, 1) : [...required, ...this.rng.some(optional, max)];
    // Rows mostly give their NOT NULL columns (non-null in the output type), so more inserts succeed.
    if (name.endsWith("_insert_input"))
      for (const f of optional)
        if (!chosen.includes(f) && f.name !== "id" && rules.notNullColumn(this.schema, name, f.name) && this.rng.chance(0.85))
          chosen = [...chosen, f];
    const fields: Array<[string, Value]> = chosen.map((f) => [
      f.name,
      this.input(f.type, f.name, depth + 1, objectType, !demanded.includes(f.name) && rules.nullableField(this.schema, name, f.name)),
    ]);
    if (name.endsWith("_insert_input")) rules.relationshipColumns(name, fields, this.knowledge);
    if (name.endsWith("_updates")) rules.disjointOperators(fields, this.rng, objectType.getFields()._set?.type, this.make);
    rules.distinctOnLeadsOrderBy(fields);
    return { kind: "object", type, fields };
  }

  /** Whether `column` of the type named `typeName` minus `suffix` (e.g. `item_order_by` minus `_order_by`) is a json column. */
  private isJsonColumn(typeName: string, suffix: string, column: string): boolean {
    return typeName.endsWith(suffix) && this.jsonColumns.has(`${typeName.slice(0, -suffix.length)}.${column}`);
  }

  private readonly make: Make = (type, name, parent) => this.input(type, name, 9, parent);

  // ---- rendering ----

  /** The value as a GraphQL literal, or (with chance `pVariable`) as a variable of the position's type. */
  private render(value: Value, pVariable: number, constant = false): string {
    if (!constant && this.rng.chance(pVariable)) return this.declare(value.type, toJson(value), value);
    switch (value.kind) {
      case "null":
        return "null";
      case "enum":
        return value.name;
      case "scalar":
        return jsonLiteral(value.json);
      case "list":
        return `[${value.items.map((v) => this.render(v, P.nestedVariable, constant)).join(", ")}]`;
      case "object":
        return `{${value.fields.map(([n, v]) => `${n}: ${this.render(v, P.nestedVariable, constant)}`).join(", ")}}`;
    }
  }

  /**
   * Declares a variable of exactly `type` holding `json`; returns its reference. Sometimes the
   * value is the variable's default instead, not sent with the request.
   */
  private declare(type: GraphQLInputType, json: unknown, value?: Value): string {
    // One variable used at several positions of the same context.
    const shared = value?.context ? this.declared.get(value.context) : undefined;
    if (shared && this.rng.chance(0.3)) return shared;
    const name = this.fresh("v");
    if (value?.context) this.declared.set(value.context, `$${name}`);
    if (value?.again) this.regenerate.set(name, value.again);
    if (value && this.rng.chance(0.15)) {
      this.variableDefs.push(`$${name}: ${String(type)} = ${this.render(value, 0, true)}`);
      return `$${name}`;
    }
    // A non-null variable where a nullable one would do is allowed (the value is not null, and
    // not regenerated then, since a new value may be null).
    const strict = json !== null && !isNonNullType(type) && this.rng.chance(0.1);
    this.variableDefs.push(`$${name}: ${String(type)}${strict ? "!" : ""}`);
    if (strict) this.regenerate.delete(name);
    this.variables[name] = json;
    return `$${name}`;
  }
}

function purposeOf(name: string, parent: GraphQLInputObjectType | null): Purpose {
  const pattern = PATTERN[name];
  if (pattern) return pattern;
  if (name === "limit" || name === "offset") return name;
  if (name === "path") return "jsonPath";
  if (name === "_delete_key" || name === "_delete_at_path") return "jsonKey";
  const parentName = parent?.name ?? "";
  if (parentName.endsWith("_inc_input")) return "inc";
  if (parentName.endsWith("_delete_key_input") || parentName.endsWith("_delete_at_path_input")) return "jsonKey";
  if (name === "id" || name.endsWith("_id")) return "key";
  return parentName.endsWith("comparison_exp") ? "compare" : "store";
}

/** The value as JSON, as a client sends it in `variables`. */
export function toJson(value: Value): unknown {
  switch (value.kind) {
    case "null":
      return null;
    case "enum":
      return value.name;
    case "scalar":
      return value.json;
    case "list":
      return value.items.map(toJson);
    case "object":
      return Object.fromEntries(value.fields.map(([n, v]) => [n, toJson(v)]));
  }
}

/** A JSON value as a GraphQL literal (object keys are GraphQL names in every document generated here). */
export function jsonLiteral(json: unknown): string {
  if (json === null) return "null";
  if (json instanceof JsonNumber) return json.text;
  if (Array.isArray(json)) return `[${json.map(jsonLiteral).join(", ")}]`;
  if (typeof json === "object")
    return `{${Object.entries(json as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${jsonLiteral(v)}`)
      .join(", ")}}`;
  return JSON.stringify(json);
}

/** The rules Hasura adds to GraphQL typing, applied to generated arguments and input objects. */
const rules = {
  /**
   * Hasura refuses an explicit null for most nullable positions (its parsers are `fieldOptional`
   * over a non-nullable parser: null is not "absent"; v2 also refuses `{_eq: null}`, see
   * server/notes/nullability-in-comparison-operators.md). It takes null where it uses
   * `P.nullable`: the select arguments (`tableWhereArg`, `tableOrderByArg`, ... in
   * server/src-lib/Hasura/GraphQL/Schema/Select.hs), order_by fields, column values of nullable
   * columns, and function arguments.
   */
  nullableArgument(name: string): boolean {
    return ["where", "order_by", "distinct_on", "limit", "offset"].includes(name);
  },

  nullableField(schema: GraphQLSchema, typeName: string, field: string): boolean {
    if (typeName.endsWith("_order_by") || typeName.endsWith("_args")) return true;
    const table = typeName.replace(/_(insert|set)_input$/, "");
    if (table === typeName) return false;
    // A column value may be null when the column is nullable, as its output field says.
    const output = schema.getType(table);
    const column = output && isObjectType(output) ? output.getFields()[field] : undefined;
    return column !== undefined && !isNonNullType(column.type) && isLeafType(getNamedType(column.type));
  },

  notNullColumn(schema: GraphQLSchema, typeName: string, field: string): boolean {
    const output = schema.getType(typeName.replace(/_insert_input$/, ""));
    const column = output && isObjectType(output) ? output.getFields()[field] : undefined;
    return column !== undefined && isNonNullType(column.type) && isLeafType(getNamedType(column.type));
  },

  /** Input fields the generator uses: json columns have no equality or ordering in PostgreSQL (Hasura exposes them all the same). */
  usable(typeName: string, field: string, isJson: (typeName: string, suffix: string, column: string) => boolean): boolean {
    if (typeName === "json_comparison_exp") return field === "_is_null";
    return !isJson(typeName, "_order_by", field);
  },

  /** With distinct_on, order_by must start with the distinct_on columns (Hasura's rule, Select.hs). */
  distinctOnLeadsOrderBy(values: Array<[string, Value]>): void {
    const distinct = values.find(([n]) => n === "distinct_on")?.[1];
    const orderIndex = values.findIndex(([n]) => n === "order_by");
    if (!distinct || distinct.kind === "null" || orderIndex < 0) return;
    const order = values[orderIndex]?.[1] as Value;
    if (order.kind === "null") return;
    const columns = distinct.kind === "list" ? distinct.items : [distinct];
    const itemType = (getNullableType(order.type) as GraphQLList<GraphQLInputType>).ofType;
    const orderByType = getNamedType(itemType) as GraphQLInputObjectType;
    const direction = orderByType.getFields()[(columns[0] as { name?: string })?.name ?? ""]?.type;
    const lead: Value[] = columns.map((c) => ({
      kind: "object",
      type: itemType,
      fields: [[(c as { name: string }).name, { kind: "enum", type: direction as GraphQLEnumType, name: "asc" }]],
    }));
    const rest = order.kind === "list" ? order.items : [{ ...order, type: itemType }];
    values[orderIndex] = ["order_by", { kind: "list", type: order.type, items: [...lead, ...rest] }];
  },

  /**
   * Update operators: at least one, and a column in only one of them (Hasura refuses
   * "column found in multiple operators" and an update without operators).
   */
  disjointOperators(values: Array<[string, Value]>, rng: Rng, setType: GraphQLInputType | undefined, make: Make): void {
    const seen = new Set<string>();
    for (const [name, value] of values) {
      if (!UPDATE_OPERATORS.includes(name) || value.kind !== "object") continue;
      value.fields = value.fields.filter(([column]) => !seen.has(column));
      for (const [column] of value.fields) seen.add(column);
    }
    if (values.some(([n, v]) => UPDATE_OPERATORS.includes(n) && v.kind === "object" && v.fields.length > 0)) return;
    // None left: replace every operator by a `_set` of one column.
    for (let i = values.length - 1; i >= 0; i--) if (UPDATE_OPERATORS.includes(values[i]?.[0] as string)) values.splice(i, 1);
    const set = setType && (getNullableType(setType) as GraphQLInputObjectType);
    if (!set) return;
    const column = rng.pick(Object.values(set.getFields()));
    values.push(["_set", { kind: "object", type: setType, fields: [[column.name, make(column.type, column.name, set)]] }]);
  },

  /** Drops the columns a nested insert of a relationship fills (Hasura refuses them given twice). */
  relationshipColumns(typeName: string, fields: Array<[string, Value]>, knowledge: Knowledge): void {
    for (const [name, value] of [...fields]) {
      const filled = knowledge.relationshipColumns[`${typeName}.${name}`];
      if (!filled || value.kind === "null") continue;
      for (const column of filled.same) removeField(fields, column);
      if (filled.nested.length === 0 || value.kind !== "object") continue;
      const data = value.fields.find(([n]) => n === "data")?.[1];
      const rows = data?.kind === "list" ? data.items : data ? [data] : [];
      for (const row of rows) if (row.kind === "object") for (const column of filled.nested) removeField(row.fields, column);
    }
  },
};

function removeField(fields: Array<[string, Value]>, name: string): void {
  const i = fields.findIndex(([n]) => n === name);
  if (i >= 0) fields.splice(i, 1);
}

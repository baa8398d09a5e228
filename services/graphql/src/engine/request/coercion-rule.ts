/**
 * Where Hasura's parsing (coercion.ts) applies: a validation rule for the literals of a
 * document, in place of graphql-js's ValuesOfCorrectTypeRule, and the list of places an
 * operation uses each variable, so that a variable's value is checked (once per request) as
 * if it were written there.
 */
import {
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLEnumType,
  GraphQLError,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLScalarType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  isRequiredInputField,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValidationContext,
  type ValueNode,
  ValuesOfCorrectTypeRule,
} from "graphql";
import { fieldNotFound, type HasuraError, missingRequiredField, type Problem } from "../errors/index.js";
import { fieldInfo } from "../schema/field-info.js";
import { isArrayColumnList, isArrayLiteral } from "../schema/pg-array.js";
import { fieldMode, type Input, type LeafMode, leafProblem, mismatch, type Segments } from "./coercion.js";

/** Plain (non-column) arguments of table fields. */
const STRICT_ARGUMENTS = new Set(["batch_size", "distinct", "path"]);

/** How an argument of a field (or a directive) reads its value. */
function argumentMode(argument: string, field: GraphQLField<unknown, unknown> | null, directive: boolean): LeafMode {
  if (directive || !field || field.name.startsWith("__")) return "strict";
  const kind = fieldInfo(field.extensions)?.kind;
  if (kind === "action") return "action";
  if (kind === "select_by_pk" || kind === "delete_by_pk") return "column";
  if (argument === "limit" || argument === "offset") return argument;
  return STRICT_ARGUMENTS.has(argument) ? "strict" : "column";
}

function literalInput(node: ValueNode): Input {
  switch (node.kind) {
    case Kind.INT:
      return { kind: "int", text: node.value };
    case Kind.FLOAT:
      return { kind: "float", text: node.value };
    case Kind.STRING:
      return { kind: "string", value: node.value, json: false };
    case Kind.ENUM:
      return { kind: "enum", value: node.value };
    case Kind.BOOLEAN:
      return { kind: "boolean", json: false };
    case Kind.LIST:
      return { kind: "list", json: false };
    case Kind.OBJECT:
      return { kind: "object", json: false };
    default:
      return { kind: "null", json: false };
  }
}

/** The problem with a literal at a location of this type, if any. */
function literalProblem(node: ValueNode, type: GraphQLInputType, mode: LeafMode): Problem | null {
  const named = getNamedType(type);
  if (isInputObjectType(named)) return mismatch(named.name, "an object", literalInput(node));
  return leafProblem(named as GraphQLScalarType | GraphQLEnumType, literalInput(node), mode);
}

function report(context: ValidationContext, node: ValueNode, problem: Problem): void {
  context.reportError(new GraphQLError(problem.message, { nodes: node, extensions: { hasuraCode: problem.code } }));
}

/**
 * A catalogue error at `node` (validation-errors.ts finds its path); `pathTail` is appended to
 * that path (a missing field is reported at its object, but Hasura's path names the field).
 */
function reportError(context: ValidationContext, node: ASTNode, error: HasuraError, pathTail: string[] = []): void {
  context.reportError(new GraphQLError(error.message, { nodes: node, extensions: { hasuraCode: error.hasuraCode, pathTail } }));
}

/**
 * Literal values as Hasura parses them: leaves in its modes and words, input objects' unknown
 * and missing fields in its words (graphql-js's ValuesOfCorrectTypeRule makes the same checks in
 * English; only its null check is kept).
 */
export function HasuraValuesRule(context: ValidationContext): ASTVisitor {
  const base = ValuesOfCorrectTypeRule(context) as Record<string, unknown>;
  const mode = (parent: unknown, ancestors: ReadonlyArray<unknown>): LeafMode => {
    const chain = [...ancestors, parent];
    // The innermost input object field decides, unless the argument it is in is an action's.
    let field: string | undefined;
    for (let i = chain.length - 1; i >= 0; i -= 1) {
      const node = chain[i] as ASTNode | readonly ASTNode[];
      if (Array.isArray(node)) continue;
      const n = node as ASTNode;
      if (n.kind === Kind.LIST || n.kind === Kind.OBJECT) continue;
      if (n.kind === Kind.OBJECT_FIELD) {
        field ??= n.name.value;
        continue;
      }
      if (n.kind === Kind.ARGUMENT) {
        const argument = argumentMode(n.name.value, context.getFieldDef() ?? null, context.getDirective() !== null);
        return field === undefined || argument === "action" ? argument : fieldMode(field);
      }
      break;
    }
    return field === undefined ? "strict" : fieldMode(field);
  };
  const leaf = (node: ValueNode, _key: unknown, parent: unknown, _path: unknown, ancestors: ReadonlyArray<unknown>) => {
    const type = context.getInputType();
    if (!type) return;
    // PostgreSQL array text for an array column (`"{a,b}"`) is for PostgreSQL to read.
    if (node.kind === Kind.STRING && isArrayColumnList(getNullableType(type)) && isArrayLiteral(node.value)) return;
    const problem = literalProblem(node, type, mode(parent, ancestors));
    if (problem) report(context, node, problem);
  };
  return {
    ...base,
    IntValue: leaf,
    FloatValue: leaf,
    StringValue: leaf,
    BooleanValue: leaf,
    EnumValue: leaf,
    ListValue(node, _key, parent, _path, ancestors) {
      // TypeInfo has stepped into the item type: the location is the parent input type.
      const location = context.getParentInputType();
      if (!location || isListType(getNullableType(location))) return undefined;
      const problem = literalProblem(node, location, mode(parent, ancestors));
      if (problem) report(context, node, problem);
      return false;
    },
    ObjectValue(node, _key, parent, _path, ancestors) {
      const type = context.getInputType();
      if (!type) return false;
      const named = getNamedType(type);
      if (isInputObjectType(named)) {
        const given = new Set(node.fields.map((f) => f.name.value));
        for (const field of Object.values(named.getFields())) {
          if (!given.has(field.name) && isRequiredInputField(field))
            reportError(context, node, missingRequiredField(field.name, "$"), [field.name]);
        }
        return undefined;
      }
      const problem = literalProblem(node, type, mode(parent, ancestors));
      if (problem) report(context, node, problem);
      return false;
    },
    ObjectField(node) {
      const parentType = getNamedType(context.getParentInputType());
      if (!context.getInputType() && isInputObjectType(parentType))
        reportError(context, node, fieldNotFound(node.name.value, parentType.name));
    },
  } as ASTVisitor;
}

export interface VariableUsage {
  name: string;
  /** The type at the place of use. */
  type: GraphQLInputType;
  mode: LeafMode;
  /** Hasura's path of that place. */
  path: Segments;
}

type Fields = Record<string, GraphQLField<unknown, unknown>>;

/** Every place the operation (fragments inlined) uses a variable, in document order. */
export function variableUsages(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): VariableUsage[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const out: VariableUsage[] = [];
  const entering = new Set<string>();

  const value = (node: ValueNode, type: GraphQLInputType, mode: LeafMode, path: Segments): void => {
    if (node.kind === Kind.VARIABLE) out.push({ name: node.name.value, type, mode, path });
    else if (node.kind === Kind.LIST) {
      const nullable = getNullableType(type);
      const item = isListType(nullable) ? (nullable.ofType as GraphQLInputType) : type;
      for (const [i, v] of node.values.entries()) value(v, item, mode, [...path, i]);
    } else if (node.kind === Kind.OBJECT) {
      const named = getNamedType(type);
      if (!isInputObjectType(named)) return;
      const fields = named.getFields();
      for (const f of node.fields) {
        const def = fields[f.name.value];
        if (def) value(f.value, def.type, fieldMode(f.name.value, mode), [...path, f.name.value]);
      }
    }
  };
  const args = (
    nodes: ReadonlyArray<{ name: { value: string }; value: ValueNode }> | undefined,
    defs: readonly GraphQLArgument[],
    field: GraphQLField<unknown, unknown> | null,
    path: Segments,
  ) => {
    for (const arg of nodes ?? []) {
      const def = defs.find((d) => d.name === arg.name.value);
      if (def) value(arg.value, def.type, argumentMode(def.name, field, field === null), [...path, arg.name.value]);
    }
  };
  const selections = (set: SelectionSetNode | undefined, parent: GraphQLNamedType | undefined, prefix: Segments): void => {
    for (const s of set?.selections ?? []) {
      for (const d of s.directives ?? []) {
        const directive = schema.getDirective(d.name.value);
        if (directive) args(d.arguments, directive.args, null, [...prefix, "selectionSet", d.name.value, "args"]);
      }
      if (s.kind === Kind.FIELD) {
        const here = [...prefix, "selectionSet", s.alias?.value ?? s.name.value];
        const fields: Fields = parent && (isObjectType(parent) || isInterfaceType(parent)) ? (parent.getFields() as Fields) : {};
        const field = s.name.value === "__type" ? (TypeMetaFieldDef as GraphQLField<unknown, unknown>) : fields[s.name.value];
        if (!field) continue;
        args(s.arguments, field.args, field, [...here, "args"]);
        selections(s.selectionSet, getNamedType(field.type), here);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        selections(s.selectionSet, s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent, prefix);
      } else {
        const fragment = fragments.get(s.name.value);
        if (!fragment || entering.has(s.name.value)) continue;
        entering.add(s.name.value);
        selections(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), prefix);
        entering.delete(s.name.value);
      }
    }
  };
  const root =
    operation.operation === "mutation"
      ? schema.getMutationType()
      : operation.operation === "subscription"
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  selections(operation.selectionSet, root ?? undefined, []);
  return out;
}

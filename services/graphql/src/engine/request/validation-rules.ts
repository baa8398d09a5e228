/**
 * Our own versions of graphql-js's validation rules whose errors Hasura words differently
 * (FieldsOnCorrectTypeRule, KnownArgumentNamesRule, KnownDirectivesRule,
 * UniqueDirectivesPerLocationRule, NoFragmentCyclesRule, VariablesInAllowedPositionRule) or accept
 * more (KnownTypeNamesRule): they report Hasura's message and code directly, from the
 * error catalogue, with the node whose path Hasura gives (validation-errors.ts computes it).
 * Hasura's wording: server/src-lib/Hasura/GraphQL/Parser/Collect.hs and Directives.hs.
 */
import {
  type ASTNode,
  type ASTVisitor,
  type DirectiveNode,
  GraphQLError,
  type GraphQLInputType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  KnownTypeNamesRule,
  print,
  type TypeNode,
  type ValidationContext,
  type VariableDefinitionNode,
} from "graphql";
import {
  fieldNotFound,
  type HasuraError,
  misplacedDirective,
  repeatedDirective,
  unknownArgument,
  unknownDirective,
  variableTypeMismatch,
} from "../errors/index.js";
import { fragmentCycleError } from "./fragment-cycles.js";

function report(context: ValidationContext, node: ASTNode, error: HasuraError): void {
  context.reportError(new GraphQLError(error.message, { nodes: node, extensions: { hasuraCode: error.hasuraCode } }));
}

const META_FIELDS = new Set(["__typename", "__schema", "__type"]);

/** A field the parent type does not have: `field 'x' not found in type: 'T'`, at the field. */
export function HasuraFieldsRule(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const parent = context.getParentType();
      if (!parent || META_FIELDS.has(node.name.value)) return;
      if ((isObjectType(parent) || isInterfaceType(parent)) && parent.getFields()[node.name.value]) return;
      // Hasura parses an interface's selection against each of its objects (a remote schema's
      // interfaces; tables have none), so it names the first of them.
      const named = isInterfaceType(parent) ? (context.getSchema().getPossibleTypes(parent)[0] ?? parent) : parent;
      report(context, node, fieldNotFound(node.name.value, named.name));
    },
  };
}

/** An argument the field does not take: `'f' has no argument named 'x'`, at the field (as Hasura points). */
export function HasuraArgumentsRule(context: ValidationContext): ASTVisitor {
  return {
    Argument(node, _key, _parent, _path, ancestors) {
      const directive = context.getDirective();
      if (directive) {
        if (!directive.args.some((a) => a.name === node.name.value))
          context.reportError(
            new GraphQLError(`Unknown argument "${node.name.value}" on directive "@${directive.name}".`, { nodes: node }),
          );
        return;
      }
      const field = context.getFieldDef();
      if (!field || field.args.some((a) => a.name === node.name.value)) return;
      const owner = [...ancestors].reverse().find((a) => !Array.isArray(a) && (a as ASTNode).kind === Kind.FIELD) as ASTNode | undefined;
      report(context, owner ?? node, unknownArgument(field.name, node.name.value, "$"));
    },
  };
}

/** Where a directive stands, in graphql-js's DirectiveLocation names. */
function locationOf(ancestors: ReadonlyArray<unknown>): string | null {
  const owner = ancestors[ancestors.length - 1] as ASTNode | undefined;
  switch (owner?.kind) {
    case Kind.OPERATION_DEFINITION:
      return owner.operation.toUpperCase();
    case Kind.FIELD:
      return "FIELD";
    case Kind.FRAGMENT_SPREAD:
      return "FRAGMENT_SPREAD";
    case Kind.INLINE_FRAGMENT:
      return "INLINE_FRAGMENT";
    case Kind.FRAGMENT_DEFINITION:
      return "FRAGMENT_DEFINITION";
    case Kind.VARIABLE_DEFINITION:
      return "VARIABLE_DEFINITION";
    default:
      return null;
  }
}

/**
 * Hasura's directive letting a subscription select several root fields, answered together by one
 * multiplexed statement (server/src-lib/Hasura/GraphQL/Execute.hs; its own tests use it, and it is
 * not in the schema's introspection): accepted on a subscription only.
 */
export const MULTIPLE_ROOT_FIELDS = "_multiple_top_level_fields";

/** Unknown, misplaced and repeated directives, in Hasura's words. */
export function HasuraDirectivesRule(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    enter(node: ASTNode) {
      const directives = (node as { directives?: readonly DirectiveNode[] }).directives;
      if (!directives || directives.length < 2) return;
      const seen = new Set<string>();
      for (const d of directives) {
        const def = schema.getDirective(d.name.value);
        if (seen.has(d.name.value) && def && !def.isRepeatable) report(context, d, repeatedDirective(d.name.value, "$"));
        seen.add(d.name.value);
      }
    },
    Directive(node, _key, _parent, _path, ancestors) {
      const location = locationOf(ancestors);
      if (node.name.value === MULTIPLE_ROOT_FIELDS) {
        if (location !== "SUBSCRIPTION") report(context, node, misplacedDirective(node.name.value, location ?? "FIELD", "$"));
        return;
      }
      const def = schema.getDirective(node.name.value);
      if (!def) return report(context, node, unknownDirective(node.name.value, "$"));
      if (location && !def.locations.includes(location as (typeof def.locations)[number]))
        report(context, node, misplacedDirective(node.name.value, location, "$"));
    },
  };
}

/** A fragment cycle as Hasura meets it while inlining the operation (fragment-cycles.ts), at its own path. */
export function HasuraFragmentCyclesRule(context: ValidationContext): ASTVisitor {
  return {
    Document(node) {
      const cycle = fragmentCycleError(node);
      if (cycle)
        context.reportError(new GraphQLError(cycle.message, { extensions: { hasuraCode: cycle.hasuraCode, hasuraPath: cycle.path } }));
    },
  };
}

/**
 * Type names must exist, except in an inline fragment's type condition and a variable's type:
 * Hasura selects nothing from `... on T` when T is not a type of the role's schema (the remote's
 * own name of a type its customization renamed, say), and checks a variable's type only where the
 * variable is used (HasuraVariablesInAllowedPositionRule).
 */
export function HasuraKnownTypeNamesRule(context: ValidationContext): ASTVisitor {
  const known = KnownTypeNamesRule(context) as { NamedType: (...args: unknown[]) => void };
  return {
    NamedType(node, key, parent, path, ancestors) {
      if (parent && !Array.isArray(parent) && (parent as ASTNode).kind === Kind.INLINE_FRAGMENT) return;
      const inVariableDefinition = [parent, ...ancestors].some(
        (a) => a && !Array.isArray(a) && (a as ASTNode).kind === Kind.VARIABLE_DEFINITION,
      );
      if (inVariableDefinition) return;
      known.NamedType(node, key, parent, path, ancestors);
    },
  };
}

/** Whether a variable of type `declared` fits where `expected` is: the same names and lists, never null where null is not. */
function fits(declared: TypeNode, expected: GraphQLInputType): boolean {
  if (isNonNullType(expected)) return declared.kind === Kind.NON_NULL_TYPE && fits(declared.type, expected.ofType);
  if (declared.kind === Kind.NON_NULL_TYPE) return fits(declared.type, expected);
  if (isListType(expected)) return declared.kind === Kind.LIST_TYPE && fits(declared.type, expected.ofType);
  return declared.kind === Kind.NAMED_TYPE && declared.name.value === expected.name;
}

/**
 * A variable used where its declared type does not fit (GraphQL's "all variable usages are
 * allowed", by type names, so a type the schema does not have never fits), in Hasura's words: a
 * nullable variable fits a non-null place only when it or the place has a non-null default.
 */
export function HasuraVariablesInAllowedPositionRule(context: ValidationContext): ASTVisitor {
  let declared = new Map<string, VariableDefinitionNode>();
  return {
    OperationDefinition: {
      enter() {
        declared = new Map();
      },
      leave(operation) {
        for (const usage of context.getRecursiveVariableUsages(operation)) {
          const def = declared.get(usage.node.name.value);
          if (!def || !usage.type) continue;
          let expected = usage.type;
          const defaulted = (def.defaultValue && def.defaultValue.kind !== Kind.NULL) || usage.defaultValue !== undefined;
          if (isNonNullType(expected) && def.type.kind !== Kind.NON_NULL_TYPE && defaulted) expected = expected.ofType;
          if (!fits(def.type, expected))
            report(context, usage.node, variableTypeMismatch(usage.node.name.value, print(def.type), String(usage.type)));
        }
      },
    },
    VariableDefinition(node) {
      declared.set(node.variable.name.value, node);
    },
  };
}

/**
 * graphql-js validation errors in Hasura's words and paths.
 *
 * Most are rewritten from graphql-js's English messages with the regular expressions below, so
 * `graphql` is pinned to an exact version in package.json: a release that rewords a message
 * would silently turn Hasura's error into graphql-js's. Unpin only once no such mapping is left,
 * that is when each of these rules is replaced in execute.ts's RULES by one of ours reporting
 * Hasura's message directly (as coercion-rule.ts does for ValuesOfCorrectTypeRule):
 * FieldsOnCorrectTypeRule, KnownArgumentNamesRule, KnownDirectivesRule,
 * UniqueDirectivesPerLocationRule, and NoFragmentCyclesRule (its message only triggers our own
 * search, fragment-cycles.ts).
 */
import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import {
  fieldNotFound,
  type HasuraCode,
  type HasuraError,
  jsonPath,
  misplacedDirective,
  repeatedDirective,
  ruleError,
  unknownArgument,
  unknownDirective,
  validationFailed,
} from "./errors.js";
import { fragmentCycleError } from "./fragment-cycles.js";

type Segments = Array<string | number>;

/**
 * Hasura's JSON path of the AST node an error points at: a field, a value inside its arguments,
 * or, for a directive, the selection set holding the directive's field. Fragment spreads are
 * followed as if inlined (Hasura parses the inlined operation).
 */
function segmentsOf(document: DocumentNode, target: ASTNode | undefined): Segments | null {
  if (!target) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const entered = new Set<string>();
  let found: Segments | null = null;
  const walkValue = (value: ValueNode, prefix: Segments): void => {
    if (found) return;
    if (value === target) found = prefix;
    else if (value.kind === Kind.OBJECT) {
      for (const field of value.fields) {
        const here = [...prefix, field.name.value];
        if (field === target) found = here;
        else walkValue(field.value, here);
      }
    } else if (value.kind === Kind.LIST) {
      for (const [i, v] of value.values.entries()) walkValue(v, [...prefix, i]);
    }
  };
  const walk = (set: SelectionSetNode | undefined, prefix: Segments): void => {
    for (const s of set?.selections ?? []) {
      if (found) return;
      if (s.directives?.some((d) => d === target || d.arguments?.some((a) => a === target))) {
        found = [...prefix, "selectionSet"];
        return;
      }
      if (s.kind === Kind.FIELD) {
        const here = [...prefix, "selectionSet", s.alias?.value ?? s.name.value];
        if (s === target) {
          found = here;
          return;
        }
        for (const arg of s.arguments ?? []) {
          const argPath = [...here, "args", arg.name.value];
          if (arg === target) found = argPath;
          else walkValue(arg.value, argPath);
        }
        walk(s.selectionSet, here);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, prefix);
      else if (!entered.has(s.name.value)) {
        entered.add(s.name.value);
        walk(fragments.get(s.name.value)?.selectionSet, prefix);
      }
    }
  };
  for (const def of document.definitions) if (def.kind === Kind.OPERATION_DEFINITION && !found) walk(def.selectionSet, []);
  return found;
}

/** The path of `target`, then `tail`; `$` when the node is not found. */
function pathOf(document: DocumentNode, target: ASTNode | undefined, tail: readonly string[] = []): string {
  const found = segmentsOf(document, target);
  return found ? jsonPath([...found, ...tail]) : "$";
}

const UNKNOWN_FIELD = /^Cannot query field "([^"]+)" on type "([^"]+)"/;
const UNKNOWN_DIRECTIVE = /^Unknown directive "@([^"]+)"/;
const UNKNOWN_ARGUMENT = /^Unknown argument "([^"]+)" on field "[^"]*\.([^".]+)"/;

const DUPLICATE_DIRECTIVE = /^The directive "@([^"]+)" can only be used once at this location\./;
const MISPLACED_DIRECTIVE = /^Directive "@([^"]+)" may not be used on ([A-Z_]+)\./;

export function toHasuraError(error: GraphQLError, document: DocumentNode): HasuraError {
  const node = error.nodes?.[0];
  // Raised by our own rules (coercion-rule.ts) in Hasura's words already.
  const code = error.extensions?.hasuraCode as HasuraCode | undefined;
  const tail = (error.extensions?.pathTail as string[] | undefined) ?? [];
  if (code) return ruleError(code, error.message, pathOf(document, node, tail));
  const path = pathOf(document, node);
  if (error.message.startsWith("Cannot spread fragment ")) {
    const cycle = fragmentCycleError(document);
    if (cycle) return cycle;
  }
  const duplicate = DUPLICATE_DIRECTIVE.exec(error.message);
  if (duplicate) return repeatedDirective(duplicate[1] ?? "", path);
  const misplaced = MISPLACED_DIRECTIVE.exec(error.message);
  if (misplaced) return misplacedDirective(misplaced[1] ?? "", misplaced[2] ?? "", path);
  const unknown = UNKNOWN_FIELD.exec(error.message);
  if (unknown) return fieldNotFound(unknown[1] ?? "", unknown[2] ?? "", path);
  const argument = UNKNOWN_ARGUMENT.exec(error.message);
  // Hasura points at the field, not at the argument.
  if (argument) return unknownArgument(argument[2] ?? "", argument[1] ?? "", path.replace(/\.args\.[^.]+$/, ""));
  const directive = UNKNOWN_DIRECTIVE.exec(error.message);
  if (directive) return unknownDirective(directive[1] ?? "", path);
  return validationFailed(error.message, path);
}

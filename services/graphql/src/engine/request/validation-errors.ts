/**
 * Validation errors in Hasura's words and paths. Our own rules (coercion-rule.ts,
 * validation-rules.ts) report Hasura's message and code already; this gives them Hasura's path.
 * graphql-js's remaining rules keep their own message; none is read or rewritten here.
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
import { type HasuraCode, type HasuraError, jsonPath, ruleError, validationFailed } from "../errors/index.js";

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

export function toHasuraError(error: GraphQLError, document: DocumentNode): HasuraError {
  const node = error.nodes?.[0];
  const code = error.extensions?.hasuraCode as HasuraCode | undefined;
  const tail = (error.extensions?.pathTail as string[] | undefined) ?? [];
  const path = error.extensions?.hasuraPath as string | undefined;
  if (code) return ruleError(code, error.message, path ?? pathOf(document, node, tail));
  return validationFailed(error.message, pathOf(document, node));
}

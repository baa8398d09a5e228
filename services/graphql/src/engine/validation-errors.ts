/** graphql-js validation errors in Hasura's words and paths (reference/hasura.md 2.5). */
import { type ASTNode, type DocumentNode, type GraphQLError, Kind, type SelectionSetNode, visit } from "graphql";
import { fieldNotFound, HasuraError } from "./errors.js";

/** `$.selectionSet.a.selectionSet.b` for the field node an error points at. */
function pathOf(document: DocumentNode, target: ASTNode | undefined): string {
  if (!target) return "$";
  let found: string | null = null;
  const walk = (set: SelectionSetNode | undefined, prefix: string): void => {
    for (const s of set?.selections ?? []) {
      if (found) return;
      if (s.kind === Kind.FIELD) {
        const here = `${prefix}.selectionSet.${s.alias?.value ?? s.name.value}`;
        if (s === target) found = here;
        else walk(s.selectionSet, here);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, prefix);
    }
  };
  visit(document, {
    OperationDefinition(node) {
      walk(node.selectionSet, "$");
    },
  });
  return found ?? "$";
}

export function toHasuraError(error: GraphQLError, document: DocumentNode): HasuraError {
  const node = error.nodes?.[0];
  const unknownField = /^Cannot query field "([^"]+)" on type "([^"]+)"/.exec(error.message);
  if (unknownField) {
    return fieldNotFound(unknownField[1] ?? "", unknownField[2] ?? "", pathOf(document, node));
  }
  return new HasuraError("validation-failed", error.message, pathOf(document, node));
}

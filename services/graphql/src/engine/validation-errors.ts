/** graphql-js validation errors in Hasura's words and paths (reference/hasura.md 2.5). */
import { type ASTNode, type DocumentNode, type GraphQLError, Kind, type SelectionSetNode, type ValueNode, visit } from "graphql";
import { fieldNotFound, HasuraError, jsonPath } from "./errors.js";

type Segments = Array<string | number>;

/** Hasura's JSON path of the AST node an error points at: a field, or a value inside its arguments. */
function pathOf(document: DocumentNode, target: ASTNode | undefined): string {
  if (!target) return "$";
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
    }
  };
  visit(document, {
    OperationDefinition(node) {
      walk(node.selectionSet, []);
    },
  });
  return found ? jsonPath(found) : "$";
}

const UNKNOWN_FIELD = /^Cannot query field "([^"]+)" on type "([^"]+)"/;
const UNKNOWN_INPUT_FIELD = /^Field "([^"]+)" is not defined by type "([^"]+)"/;
const UNKNOWN_DIRECTIVE = /^Unknown directive "@([^"]+)"/;

export function toHasuraError(error: GraphQLError, document: DocumentNode): HasuraError {
  const node = error.nodes?.[0];
  const path = pathOf(document, node);
  const unknown = UNKNOWN_FIELD.exec(error.message) ?? UNKNOWN_INPUT_FIELD.exec(error.message);
  if (unknown) return fieldNotFound(unknown[1] ?? "", unknown[2] ?? "", path);
  const directive = UNKNOWN_DIRECTIVE.exec(error.message);
  if (directive) return new HasuraError("validation-failed", `directive "${directive[1]}" is not defined in the schema`, path);
  return new HasuraError("validation-failed", error.message, path);
}

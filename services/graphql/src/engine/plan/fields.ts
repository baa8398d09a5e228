/** Collects the fields of a selection set: fragments inlined, @skip/@include applied, equal response keys merged. */
import { type DirectiveNode, type DocumentNode, type FieldNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from "graphql";
import { astValue, type Variables } from "./values.js";

export interface Collected {
  responseKey: string;
  name: string;
  node: FieldNode;
  /** Sub-selections of every merged occurrence. */
  selections: SelectionSetNode[];
}

export interface Fragments {
  [name: string]: FragmentDefinitionNode;
}

/** The fragment definitions of a document, by name. */
export function fragmentsOf(document: DocumentNode): Fragments {
  const fragments: Fragments = {};
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  return fragments;
}

/** Whether @skip / @include keep a selection, given the request's variables. */
export function included(directives: readonly DirectiveNode[] | undefined, variables: Variables): boolean {
  for (const d of directives ?? []) {
    const arg = d.arguments?.find((a) => a.name.value === "if");
    const value = arg ? astValue(arg.value, variables) : undefined;
    if (d.name.value === "skip" && value === true) return false;
    if (d.name.value === "include" && value === false) return false;
  }
  return true;
}

export function collectFields(
  selectionSets: readonly SelectionSetNode[],
  typeName: string,
  fragments: Fragments,
  variables: Variables,
): Collected[] {
  const byKey = new Map<string, Collected>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!included(selection.directives, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const existing = byKey.get(key);
        if (existing) {
          if (selection.selectionSet) existing.selections.push(selection.selectionSet);
        } else {
          byKey.set(key, {
            responseKey: key,
            name: selection.name.value,
            node: selection,
            selections: selection.selectionSet ? [selection.selectionSet] : [],
          });
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!selection.typeCondition || selection.typeCondition.name.value === typeName) visit(selection.selectionSet);
      } else {
        const fragment = fragments[selection.name.value];
        if (fragment && fragment.typeCondition.name.value === typeName) visit(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) visit(set);
  return [...byKey.values()];
}

/**
 * Fragment cycles reported as Hasura reports them: it inlines fragment spreads from the top of
 * each operation and stops at the first spread of a fragment it is already inside, naming that
 * fragment and the ones entered since, at the path reached (field names, then the fragment's).
 */
import { type DocumentNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from "graphql";
import { fragmentCycle, type HasuraError, jsonPath } from "../errors/index.js";

type Segments = Array<string | number>;

/** The first fragment cycle met while inlining the document's operations, as Hasura words it; null when there is none. */
export function fragmentCycleError(document: DocumentNode): HasuraError | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const inlined = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, path: Segments, stack: string[]): HasuraError | null => {
    for (const s of set?.selections ?? []) {
      let error: HasuraError | null = null;
      if (s.kind === Kind.FIELD) error = walk(s.selectionSet, [...path, "selectionSet", s.name.value], stack);
      else if (s.kind === Kind.INLINE_FRAGMENT) error = walk(s.selectionSet, path, stack);
      else {
        const name = s.name.value;
        const here = [...path, "selectionSet"];
        if (inlined.has(name)) continue;
        // `stack` is innermost first: the fragments entered after `name` close the cycle.
        const at = stack.indexOf(name);
        if (at >= 0) return fragmentCycle([name, ...stack.slice(0, at).reverse()], jsonPath(here));
        const fragment = fragments.get(name);
        if (!fragment) continue;
        error = walk(fragment.selectionSet, [...here, name], [name, ...stack]);
        inlined.add(name);
      }
      if (error) return error;
    }
    return null;
  };
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const error = walk(def.selectionSet, [], []);
    if (error) return error;
  }
  return null;
}

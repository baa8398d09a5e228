/**
 * The depth and the node count of an operation, as Hasura's depth and node limits measure them
 * (https://hasura.io/docs/2.0/security/api-limits/): a node is a field with a selection set, and
 * the depth is how many such fields nest, so `{ viewer { name } }` has depth 1 and one node.
 * Fragments (spread or inline) count where they are used, as if written out there; they add no
 * level themselves. Introspection fields (`__schema`, `__type`) are left out: the docs exempt
 * introspection from depth limits, and it reads no data, which node limits are about.
 *
 * Each named fragment is measured once per document however many times it is spread, so a
 * document that would expand to a huge operation (fragments spreading fragments) costs no more
 * than its own text to measure. Runs on validated documents (no fragment cycles).
 */
import { type DocumentNode, type FragmentDefinitionNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from "graphql";

export interface OperationSize {
  depth: number;
  nodes: number;
}

const INTROSPECTION = new Set(["__schema", "__type"]);

const sizes = new WeakMap<OperationDefinitionNode, OperationSize>();

export function operationSize(document: DocumentNode, operation: OperationDefinitionNode): OperationSize {
  const known = sizes.get(operation);
  if (known) return known;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const measured = new Map<string, OperationSize>();

  const measure = (set: SelectionSetNode, root: boolean): OperationSize => {
    let depth = 0;
    let nodes = 0;
    for (const selection of set.selections) {
      let inner: OperationSize;
      if (selection.kind === Kind.FIELD) {
        if (!selection.selectionSet || (root && INTROSPECTION.has(selection.name.value))) continue;
        const sub = measure(selection.selectionSet, false);
        inner = { depth: sub.depth + 1, nodes: sub.nodes + 1 };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(selection.selectionSet, root);
      } else {
        inner = fragment(selection.name.value, root);
      }
      depth = Math.max(depth, inner.depth);
      nodes += inner.nodes;
    }
    return { depth, nodes };
  };

  const fragment = (name: string, root: boolean): OperationSize => {
    // At the root a fragment may hold introspection fields that are left out: measured apart.
    const key = `${root ? "root:" : ""}${name}`;
    let size = measured.get(key);
    if (!size) {
      const def = fragments.get(name);
      // Marked before measuring, so even an unvalidated cycle ends.
      measured.set(key, { depth: 0, nodes: 0 });
      size = def ? measure(def.selectionSet, root) : { depth: 0, nodes: 0 };
      measured.set(key, size);
    }
    return size;
  };

  const size = measure(operation.selectionSet, true);
  sizes.set(operation, size);
  return size;
}

/**
 * The operations and fragments of a client's GraphQL templates, each operation as the document the
 * client sends: the operation and the fragments it spreads, each once, taken from its own template
 * or else from the client's other templates by name (graphql-codegen's `documentMode:
 * documentNode` builds the documents a client imports so, whichever template defines a fragment).
 * Checked with graphql-js's `validate`.
 */
import { relative } from "node:path";
import {
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  Kind,
  NoUnusedFragmentsRule,
  type OperationDefinitionNode,
  parse,
  print,
  specifiedRules,
  validate,
} from "graphql";
import type { Template } from "./templates.js";

export interface ClientOperation {
  name: string;
  kind: OperationDefinitionNode["operation"];
  file: string;
  document: DocumentNode;
}

export interface ClientDocuments {
  operations: ClientOperation[];
  /** Every fragment by name (a name defined twice with different text is an error). */
  fragments: Map<string, FragmentDefinitionNode>;
}

/** Fragment definitions deduplicated by name; two different bodies under one name are refused. */
function uniqueFragments(definitions: readonly DefinitionNode[], where: string): FragmentDefinitionNode[] {
  const byName = new Map<string, FragmentDefinitionNode>();
  for (const def of definitions) {
    if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const known = byName.get(def.name.value);
    if (known && print(known) !== print(def)) throw new Error(`${where}: two different fragments named ${def.name.value}`);
    byName.set(def.name.value, def);
  }
  return [...byName.values()];
}

/** The fragments `root` spreads, directly or through other fragments, among `available`. */
function spreadFragments(root: DefinitionNode, available: FragmentDefinitionNode[]): FragmentDefinitionNode[] {
  const byName = new Map<string, FragmentDefinitionNode>();
  for (const f of available) if (!byName.has(f.name.value)) byName.set(f.name.value, f);
  const needed = new Map<string, FragmentDefinitionNode>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node && typeof node === "object") {
      const { kind, name } = node as { kind?: string; name?: { value: string } };
      if (kind === Kind.FRAGMENT_SPREAD && name && !needed.has(name.value)) {
        const fragment = byName.get(name.value);
        if (fragment) {
          needed.set(name.value, fragment);
          pending.push(fragment);
        }
      }
      for (const [key, value] of Object.entries(node)) if (key !== "loc" && typeof value === "object") pending.push(value);
    }
  }
  return [...needed.values()];
}

export function clientDocuments(templates: Template[], repo: string): ClientDocuments {
  const parsed = templates.map((template) => {
    const where = `${relative(repo, template.file)}${template.name ? ` (${template.name})` : ""}`;
    try {
      return { template, where, document: parse(template.text) };
    } catch (error) {
      throw new Error(`${where}: not a GraphQL document: ${(error as Error).message}`);
    }
  });
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { document, where } of parsed)
    for (const fragment of uniqueFragments(document.definitions, where)) {
      const known = fragments.get(fragment.name.value);
      if (known && print(known) !== print(fragment))
        throw new Error(`${where}: fragment ${fragment.name.value} differs from another of that name`);
      fragments.set(fragment.name.value, fragment);
    }
  const operations: ClientOperation[] = [];
  for (const { template, document, where } of parsed) {
    // Its own fragments first, then the client's others by name.
    const available = [...uniqueFragments(document.definitions, where), ...fragments.values()];
    for (const def of document.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION) continue;
      if (!def.name) throw new Error(`${where}: an anonymous operation`);
      const definitions = [def, ...spreadFragments(def, available)];
      operations.push({
        name: def.name.value,
        kind: def.operation,
        file: relative(repo, template.file),
        document: { kind: Kind.DOCUMENT, definitions },
      });
    }
  }
  return { operations, fragments };
}

export interface Verdict {
  name: string;
  errors: string[];
}

export function validateOperations(schema: GraphQLSchema, operations: ClientOperation[]): Verdict[] {
  return operations.map((op) => ({ name: op.name, errors: validate(schema, op.document).map((e) => e.message) }));
}

/** Fragments no operation uses, checked alone (every rule but "fragment is unused"). */
export function validateUnusedFragments(schema: GraphQLSchema, documents: ClientDocuments): Verdict[] {
  const used = new Set<string>();
  for (const op of documents.operations)
    for (const def of op.document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) used.add(def.name.value);
  const rules = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);
  return [...documents.fragments.values()]
    .filter((f) => !used.has(f.name.value))
    .map((f) => ({
      name: `fragment ${f.name.value}`,
      errors: validate(schema, { kind: Kind.DOCUMENT, definitions: [f] }, rules).map((e) => e.message),
    }));
}

/**
 * Remote schema customization (https://hasura.io/docs/latest/remote-schemas/schema-customization/),
 * as Hasura's getCustomizer and validateSchemaCustomizations build and check it
 * (server/src-lib/Hasura/GraphQL/RemoteServer.hs): type names get the mapping, else the prefix and
 * suffix (GraphQL's scalars, `__` types and, without a namespace, the root types keep theirs; with
 * one, the root types are prefixed by it); field names per parent type likewise. Customizations that
 * make two names equal, or an interface's field differ from its objects', are refused.
 */
import type { RemoteCustomization, RemoteCustomizer, RemoteIntrospection } from "./types.js";
import { RemoteSchemaProblem } from "./validate.js";

const BUILT_IN_SCALARS = new Set(["Int", "Float", "String", "Boolean", "ID"]);

const quoted = (names: Iterable<string>) => [...names].map((n) => JSON.stringify(n)).join(", ");

function duplicates(names: string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  return [...dups];
}

function prefixed(names: Iterable<string>, prefix: string | null, suffix: string | null): Map<string, string> {
  const map = new Map<string, string>();
  if (prefix === null && suffix === null) return map;
  for (const n of names) map.set(n, `${prefix ?? ""}${n}${suffix ?? ""}`);
  return map;
}

/** Left-biased union: entries of earlier maps win. */
function union(...maps: Array<Map<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const map of maps) for (const [k, v] of map) if (!out.has(k)) out.set(k, v);
  return out;
}

/** The customizer of `customization` over the remote's schema (identity when there is none). */
export function makeCustomizer(schema: RemoteIntrospection, customization: RemoteCustomization | null): RemoteCustomizer {
  if (!customization) return { namespace: null, typeNames: new Map(), fieldNames: new Map() };
  const namespace = customization.rootFieldsNamespace;
  const roots = [schema.queryRoot, schema.mutationRoot, schema.subscriptionRoot].filter((r): r is string => r !== null);
  const protectedNames = new Set([...BUILT_IN_SCALARS, ...(namespace === null ? roots : [])]);
  const renamed = [...schema.types.keys()].filter((n) => !n.startsWith("__") && !protectedNames.has(n));
  const rootMap = namespace === null ? new Map<string, string>() : prefixed(roots, namespace, null);
  const types = customization.typeNames;
  const typeNames = types ? union(new Map(Object.entries(types.mapping)), rootMap, prefixed(renamed, types.prefix, types.suffix)) : rootMap;
  const fieldNames = new Map<string, Map<string, string>>();
  for (const c of customization.fieldNames) {
    const def = schema.types.get(c.parentType);
    if (def?.kind !== "OBJECT" && def?.kind !== "INTERFACE") continue;
    const names = def.fields.map((f) => f.name);
    fieldNames.set(c.parentType, union(new Map(Object.entries(c.mapping)), prefixed(names, c.prefix, c.suffix)));
  }
  return { namespace, typeNames, fieldNames };
}

const typeName = (c: RemoteCustomizer, name: string) => c.typeNames.get(name) ?? name;
const fieldName = (c: RemoteCustomizer, type: string, field: string) => c.fieldNames.get(type)?.get(field) ?? field;

/** Hasura's validateSchemaCustomizations: consistent interface field names, distinct type and field names. */
export function checkCustomizer(schema: RemoteIntrospection, c: RemoteCustomizer): void {
  for (const def of schema.types.values()) {
    if (def.kind !== "INTERFACE") continue;
    for (const member of def.possibleTypes)
      for (const f of def.fields) {
        const fromInterface = fieldName(c, def.name, f.name);
        const fromType = fieldName(c, member, f.name);
        if (fromInterface !== fromType)
          throw new RemoteSchemaProblem(
            `Remote schema customization inconsistency: field name mapping for field ${JSON.stringify(f.name)} of interface ${JSON.stringify(def.name)} is inconsistent with mapping for type ${JSON.stringify(member)}. Interface field name maps to ${JSON.stringify(fromInterface)}. Type field name maps to ${JSON.stringify(fromType)}.`,
          );
      }
  }
  const typeDups = duplicates([...schema.types.keys()].map((n) => typeName(c, n)));
  if (typeDups.length > 0)
    throw new RemoteSchemaProblem(`Type name mappings are not distinct; the following types appear more than once: ${quoted(typeDups)}`);
  for (const def of schema.types.values()) {
    if (def.kind !== "INTERFACE" && def.kind !== "OBJECT") continue;
    const dups = duplicates(def.fields.map((f) => fieldName(c, def.name, f.name)));
    if (dups.length > 0)
      throw new RemoteSchemaProblem(
        `Field name mappings for ${def.kind === "OBJECT" ? "object" : "interface"} type ${JSON.stringify(def.name)} are not distinct; the following fields appear more than once: ${quoted(dups)}`,
      );
  }
}

/**
 * What keeps a valid remote schema from being served: its root fields taken by the database's or
 * another remote's, or a type of the same name defined differently. Checked as Hasura's
 * buildAndValidateRemoteSchemas checks them (server/src-lib/Hasura/GraphQL/Schema.hs), remote
 * schemas in metadata order, each against the database's (admin) schema and the ones kept before it.
 */
import {
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
} from "graphql";
import type { TypeRef } from "../model/types.js";
import { customFieldName, customTypeName, type RemoteInputValue, type RemoteSchemaModel, type RemoteTypeDef } from "./types.js";
import { typeText } from "./validate.js";

/** A type's definition without descriptions, comparable as text. */
type Shape = string;

const fieldShapes = (fields: Array<[string, string]>) =>
  fields
    .map(([n, t]) => `${n}:${t}`)
    .sort()
    .join(",");

function localShape(type: GraphQLNamedType): Shape {
  const args = (f: GraphQLField<unknown, unknown>) => f.args.map((a) => `${a.name}:${String(a.type)}`).join(",");
  if (isObjectType(type) || isInterfaceType(type))
    return `${isObjectType(type) ? "OBJECT" : "INTERFACE"}{${fieldShapes(Object.values(type.getFields()).map((f) => [`${f.name}(${args(f)})`, String(f.type)]))}}`;
  if (isInputObjectType(type))
    return `INPUT_OBJECT{${fieldShapes(Object.values(type.getFields()).map((f: GraphQLInputField) => [f.name, String(f.type)]))}}`;
  if (isEnumType(type))
    return `ENUM{${type
      .getValues()
      .map((v) => v.name)
      .sort()
      .join(",")}}`;
  if (isUnionType(type))
    return `UNION{${type
      .getTypes()
      .map((t) => t.name)
      .sort()
      .join(",")}}`;
  return "SCALAR";
}

function remoteShape(remote: RemoteSchemaModel, def: RemoteTypeDef): Shape {
  const c = remote.customizer;
  const ref = (t: TypeRef): string => {
    const named = (r: TypeRef): TypeRef => (r.kind === "named" ? { ...r, name: customTypeName(c, r.name) } : { ...r, of: named(r.of) });
    return typeText(named(t));
  };
  const values = (vs: RemoteInputValue[]) => vs.map((v) => `${v.name}:${ref(v.type)}`).join(",");
  switch (def.kind) {
    case "OBJECT":
    case "INTERFACE":
      return `${def.kind}{${fieldShapes(def.fields.map((f) => [`${customFieldName(c, def.name, f.name)}(${values(f.args)})`, ref(f.type)]))}}`;
    case "INPUT_OBJECT":
      return `INPUT_OBJECT{${fieldShapes(def.fields.map((f) => [f.name, ref(f.type)]))}}`;
    case "ENUM":
      return `ENUM{${def.values
        .map((v) => v.name)
        .sort()
        .join(",")}}`;
    case "UNION":
      return `UNION{${def.possibleTypes
        .map((t) => customTypeName(c, t))
        .sort()
        .join(",")}}`;
    default:
      return "SCALAR";
  }
}

const baseName = (t: TypeRef): string => (t.kind === "named" ? t.name : baseName(t.of));

/** The remote's types our schema shows (their own names): those reachable from its served root types (in a role's view of it). */
export function reachableTypes(remote: RemoteSchemaModel, introspection = remote.introspection): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    const def = introspection.types.get(name);
    if (!def || found.has(name)) return;
    found.add(name);
    if (def.kind === "OBJECT" || def.kind === "INTERFACE")
      for (const f of def.fields) {
        visit(baseName(f.type));
        for (const a of f.args) visit(baseName(a.type));
      }
    if (def.kind === "OBJECT") for (const i of def.interfaces) visit(i);
    if (def.kind === "INTERFACE" || def.kind === "UNION") for (const t of def.possibleTypes) visit(t);
    if (def.kind === "INPUT_OBJECT") for (const f of def.fields) visit(baseName(f.type));
  };
  const roots = [introspection.queryRoot, introspection.mutationRoot, introspection.subscriptionRoot].filter((r): r is string => !!r);
  for (const root of roots) visit(root);
  // Without a namespace the root types themselves are not types of ours: their fields join ours.
  if (remote.customizer.namespace === null) for (const root of roots) found.delete(root);
  return found;
}

/** The root field names a remote adds to query_root or mutation_root: its namespace, or its root type's fields. */
export function remoteRootNames(remote: RemoteSchemaModel, operation: "query" | "mutation"): string[] {
  const { introspection, customizer } = remote;
  const root = operation === "query" ? introspection.queryRoot : introspection.mutationRoot;
  const def = root ? introspection.types.get(root) : undefined;
  if (def?.kind !== "OBJECT" || def.fields.length === 0) return [];
  if (customizer.namespace !== null) return [customizer.namespace];
  return def.fields.map((f) => customFieldName(customizer, def.name, f.name));
}

/** The names already taken: the database's root fields and types, then those of each remote kept. */
export class TakenNames {
  private readonly query: Set<string>;
  private readonly mutation: Set<string>;
  private readonly remoteQuery = new Set<string>();
  private readonly remoteMutation = new Set<string>();
  private readonly types = new Map<string, Shape>();

  constructor(local: GraphQLSchema) {
    this.query = new Set(Object.keys(local.getQueryType()?.getFields() ?? {}));
    this.query.delete("no_queries_available");
    this.mutation = new Set(Object.keys(local.getMutationType()?.getFields() ?? {}));
    for (const type of Object.values(local.getTypeMap())) if (!type.name.startsWith("__")) this.types.set(type.name, localShape(type));
  }

  /** Why the remote cannot be served next to what is taken (Hasura's reasons); none: it is added. */
  add(remote: RemoteSchemaModel): string[] {
    const reasons: string[] = [];
    const check = (names: string[], remotes: Set<string>, local: Set<string>) => {
      for (const n of names) if (remotes.has(n)) reasons.push(`Duplicate remote field '${n}'`);
      for (const n of names) if (local.has(n)) reasons.push(`Field cannot be overwritten by remote field '${n}'`);
    };
    const query = remoteRootNames(remote, "query");
    const mutation = remoteRootNames(remote, "mutation");
    check(query, this.remoteQuery, this.query);
    check(mutation, this.remoteMutation, this.mutation);
    const shapes = new Map<string, Shape>();
    for (const name of reachableTypes(remote)) {
      const def = remote.introspection.types.get(name) as RemoteTypeDef;
      const custom = customTypeName(remote.customizer, name);
      const shape = remoteShape(remote, def);
      const taken = this.types.get(custom);
      if (taken !== undefined && taken !== shape)
        reasons.push(`Conflicting types: Found conflicting definitions for GraphQL type '${custom}'.`);
      shapes.set(custom, shape);
    }
    if (reasons.length > 0) return reasons;
    for (const n of query) this.remoteQuery.add(n);
    for (const n of mutation) this.remoteMutation.add(n);
    for (const [n, s] of shapes) this.types.set(n, s);
    return [];
  }
}

/**
 * Remote schemas in a role's schema (https://hasura.io/docs/latest/remote-schemas/overview/). A
 * role sees a remote as remote/permission.ts's remoteView gives it: whole, or, with remote schema
 * permissions on, as its permission's schema document declares it (none when it has no
 * permission). Arguments and input fields preset for the role are not in its schema (the engine
 * sends their values), nor is an input object whose every field is (Hasura's argumentsParser and
 * remoteInputObjectParser, server/src-lib/Hasura/GraphQL/Schema/Remote.hs). The remote's query,
 * mutation and subscription fields join ours (or sit under its `root_fields_namespace`), and its
 * types are made again here with their customized names: objects, interfaces, unions, enums,
 * input objects, scalars (GraphQL's own stay ours; others pass values through). Root fields carry
 * `extensions.hasura` naming the remote and the remote's own field name; the planner
 * (plan/remote.ts) maps the other names back.
 */

import {
  GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInterfaceType,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLUnionType,
  parseValue,
  valueFromAST,
} from "graphql";
import { tableLabel } from "../errors/index.js";
import type { TableModel, TypeRef } from "../model/types.js";
import { reachableTypes } from "../remote/conflicts.js";
import { onlyPresets, relationshipField, remoteView } from "../remote/permission.js";
import {
  customFieldName,
  customTypeName,
  type RemoteFieldDef,
  type RemoteInputValue,
  type RemoteIntrospection,
  type RemoteSchemaModel,
  type RemoteTypeDef,
} from "../remote/types.js";
import type { RoleSchemaBuilder } from "./build.js";
import type { FieldInfo } from "./field-info.js";
import { wrappedType } from "./type-ref.js";

const describe = (description: string | null) => (description ? { description } : {});

/** The abstract types only remote schemas have; RoleSchemaBuilder.named keeps them with the others by name. */
export type RemoteAbstractType = GraphQLInterfaceType | GraphQLUnionType;

type Named = GraphQLObjectType | GraphQLInputObjectType | GraphQLEnumType | RemoteAbstractType;

/** The value an abstract remote type's member is answered with: the remote names it (`__typename`). */
function resolveType(value: unknown): string | undefined {
  const name = (value as { __typename?: unknown } | null)?.__typename;
  return typeof name === "string" ? name : undefined;
}

const baseName = (t: TypeRef): string => (t.kind === "named" ? t.name : baseName(t.of));

class RemoteTypes {
  /** Input objects of the view with no field the role may give (every one preset, or of such a type). */
  private readonly emptyInputs = new Map<string, boolean>();

  constructor(
    private readonly builder: RoleSchemaBuilder,
    private readonly remote: RemoteSchemaModel,
    /** What the role sees of the remote. */
    readonly view: RemoteIntrospection,
  ) {}

  private def(name: string): RemoteTypeDef | undefined {
    return this.view.types.get(name);
  }

  /** An argument or input field the role does not give: preset, or of an input object it can give nothing of. */
  hidden(value: RemoteInputValue): boolean {
    return value.preset !== undefined || this.emptyInput(baseName(value.type));
  }

  private emptyInput(name: string): boolean {
    let empty = this.emptyInputs.get(name);
    if (empty === undefined) {
      empty = onlyPresets(this.view, name);
      this.emptyInputs.set(name, empty);
    }
    return empty;
  }

  /** The arguments (or input fields) of `values` the role gives. */
  shown(values: RemoteInputValue[]): RemoteInputValue[] {
    return this.view.presets ? values.filter((v) => !this.hidden(v)) : values;
  }

  private named<T extends Named>(name: string, make: () => T): T {
    return this.builder.named(customTypeName(this.remote.customizer, name), make);
  }

  private leaf(name: string): GraphQLNamedType {
    const def = this.def(name);
    if (def?.kind === "ENUM")
      return this.named(
        name,
        () =>
          new GraphQLEnumType({
            name: customTypeName(this.remote.customizer, name),
            ...describe(def.description),
            values: Object.fromEntries(def.values.map((v) => [v.name, { value: v.name, ...describe(v.description) }])),
          }),
      );
    const custom = customTypeName(this.remote.customizer, name);
    return this.builder.scalarNamed(custom, def?.description ?? null);
  }

  input(type: TypeRef): GraphQLInputType {
    return wrappedType(type, (name) => {
      const def = this.def(name);
      if (def?.kind !== "INPUT_OBJECT") return this.leaf(name);
      const custom = customTypeName(this.remote.customizer, name);
      return this.named(
        name,
        () =>
          new GraphQLInputObjectType({
            name: custom,
            ...describe(def.description),
            fields: () => Object.fromEntries(this.shown(def.fields).map((f) => [f.name, this.inputValue(f)])),
          }),
      );
    }) as GraphQLInputType;
  }

  inputValue(value: RemoteInputValue) {
    const type = this.input(value.type);
    const defaultValue = value.defaultValue === null ? undefined : valueFromAST(parseValue(value.defaultValue), type);
    return { type, ...describe(value.description), ...(defaultValue !== undefined ? { defaultValue } : {}) };
  }

  output(type: TypeRef): GraphQLOutputType {
    return wrappedType(type, (name) => {
      const def = this.def(name);
      if (def?.kind === "OBJECT") return this.object(def);
      if (def?.kind === "INTERFACE") return this.interface(def);
      if (def?.kind === "UNION") {
        const members = def.possibleTypes;
        return this.named(
          name,
          () =>
            new GraphQLUnionType({
              name: customTypeName(this.remote.customizer, name),
              ...describe(def.description),
              types: () => members.map((m) => this.object(this.def(m) as Extract<RemoteTypeDef, { kind: "OBJECT" }>)),
              resolveType,
            }),
        );
      }
      return this.leaf(name);
    }) as GraphQLOutputType;
  }

  object(def: Extract<RemoteTypeDef, { kind: "OBJECT" }>): GraphQLObjectType {
    return this.named(
      def.name,
      () =>
        new GraphQLObjectType({
          name: customTypeName(this.remote.customizer, def.name),
          ...describe(def.description),
          interfaces: () => def.interfaces.map((i) => this.interface(this.def(i) as Extract<RemoteTypeDef, { kind: "INTERFACE" }>)),
          fields: () => this.fields(def.name, def.fields),
        }),
    );
  }

  private interface(def: Extract<RemoteTypeDef, { kind: "INTERFACE" }>): GraphQLInterfaceType {
    return this.named(
      def.name,
      () =>
        new GraphQLInterfaceType({
          name: customTypeName(this.remote.customizer, def.name),
          ...describe(def.description),
          fields: () => this.fields(def.name, def.fields),
          resolveType,
        }),
    );
  }

  /** The objects implementing the remote's interfaces our schema shows: fragments may name them. */
  members(): GraphQLObjectType[] {
    const objects: GraphQLObjectType[] = [];
    for (const name of reachableTypes(this.remote, this.view)) {
      const def = this.def(name);
      if (def?.kind !== "INTERFACE") continue;
      for (const member of def.possibleTypes) {
        const object = this.def(member);
        if (object?.kind === "OBJECT") objects.push(this.object(object));
      }
    }
    return objects;
  }

  field(f: RemoteFieldDef, info?: FieldInfo): GraphQLFieldConfig<unknown, unknown> {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const a of this.shown(f.args)) args[a.name] = this.inputValue(a);
    return { type: this.output(f.type), ...describe(f.description), args, ...(info ? { extensions: { hasura: info } } : {}) };
  }

  private fields(parent: string, fields: RemoteFieldDef[]): GraphQLFieldConfigMap<unknown, unknown> {
    return Object.fromEntries(fields.map((f) => [customFieldName(this.remote.customizer, parent, f.name), this.field(f)]));
  }

  /** The remote's fields of one of our root types: its root type's fields, or its namespace field. */
  rootFields(operation: "query" | "mutation" | "subscription"): GraphQLFieldConfigMap<unknown, unknown> {
    const { customizer, name } = this.remote;
    const introspection = this.view;
    const rootName =
      operation === "query"
        ? introspection.queryRoot
        : operation === "mutation"
          ? introspection.mutationRoot
          : introspection.subscriptionRoot;
    const root = rootName ? this.def(rootName) : undefined;
    if (root?.kind !== "OBJECT" || root.fields.length === 0) return {};
    const fields = () =>
      Object.fromEntries(
        root.fields.map((f) => [
          customFieldName(customizer, root.name, f.name),
          this.field(f, { kind: "remote", remote: name, field: f.name }),
        ]),
      );
    if (customizer.namespace === null) return fields();
    const type = this.named(
      root.name,
      () => new GraphQLObjectType({ name: customTypeName(customizer, root.name), ...describe(root.description), fields }),
    );
    return {
      [customizer.namespace]: { type: new GraphQLNonNull(type), extensions: { hasura: { kind: "remote_namespace", remote: name } } },
    };
  }
}

/** Every served remote schema's fields of one root type, and the object types the schema must list besides. */
export function remoteRootFields(
  builder: RoleSchemaBuilder,
  operation: "query" | "mutation" | "subscription",
): { fields: GraphQLFieldConfigMap<unknown, unknown>; types: GraphQLObjectType[] } {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  const types: GraphQLObjectType[] = [];
  for (const remote of builder.model.remoteSchemas ?? []) {
    const view = remoteView(remote, builder.role, builder.model.remoteSchemaPermissions);
    if (!view) continue;
    const remoteTypes = new RemoteTypes(builder, remote, view);
    const own = remoteTypes.rootFields(operation);
    Object.assign(fields, own);
    if (Object.keys(own).length > 0) types.push(...remoteTypes.members());
  }
  return { fields, types };
}

/**
 * A table's remote relationships as fields of its object type
 * (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/):
 * the remote field's type as the remote declares it (Hasura wraps the field with it:
 * remoteRelationshipToSchemaField in server/src-lib/Hasura/GraphQL/Schema/RemoteRelationship.hs;
 * a row whose join value is null still answers null), with the arguments the relationship does not fix. A role
 * sees one when it may select every lhs column (`columns`), as Hasura's schema checks the join
 * columns' select permission (remoteRelationshipField in server/src-lib/Hasura/GraphQL/Schema/RemoteRelationship.hs).
 */
export function remoteRelationshipFields(
  builder: RoleSchemaBuilder,
  table: TableModel,
  columns: ReadonlySet<string>,
): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const rel of builder.model.remoteRelationships?.get(table.key) ?? []) {
    if (!rel.lhs.every((c) => columns.has(c))) continue;
    const view = remoteView(rel.remote, builder.role, builder.model.remoteSchemaPermissions);
    // With remote schema permissions, the role reaches the relationship's field through its own view, or not at all.
    const field = view ? relationshipField(rel, view) : undefined;
    if (!view || !field) continue;
    const types = new RemoteTypes(builder, rel.remote, view);
    const config = types.field(field, { kind: "remote_rel", rel: rel.name });
    const fixed = rel.path[rel.path.length - 1]?.arguments ?? {};
    const suffix = `_remote_rel_${tableLabel(table).replace(/[^A-Za-z0-9_]/g, "_")}${rel.name}`;
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const arg of types.shown(field.args)) {
      const stripped = strippedInput(builder, types, rel.remote, arg, fixed[arg.name], suffix);
      if (stripped) args[arg.name] = stripped;
    }
    fields[rel.name] = { ...config, args };
  }
  return fields;
}

/**
 * Hasura's stripInMap: an argument the relationship fixes is gone, unless its value is an
 * input object (or a one-element list of one): then the caller may give the fields it does not
 * fix, in a type of its own named `<type>_remote_rel_<table><relationship>` (stripObject and
 * renameTypeForRelationship in server/src-lib/Hasura/RemoteSchema/SchemaCache/RemoteRelationship.hs).
 */
function strippedInput(
  builder: RoleSchemaBuilder,
  types: RemoteTypes,
  remote: RemoteSchemaModel,
  value: RemoteInputValue,
  fixedValue: unknown,
  suffix: string,
): ReturnType<RemoteTypes["inputValue"]> | null {
  if (fixedValue === undefined) return types.inputValue(value);
  const type = strippedType(builder, types, remote, value.type, fixedValue, suffix);
  return type ? { type, ...describe(value.description) } : null;
}

function strippedType(
  builder: RoleSchemaBuilder,
  types: RemoteTypes,
  remote: RemoteSchemaModel,
  type: TypeRef,
  fixedValue: unknown,
  suffix: string,
): GraphQLInputType | null {
  const wrap = (inner: GraphQLInputType) => (type.nullable ? inner : new GraphQLNonNull(inner));
  if (Array.isArray(fixedValue)) {
    if (type.kind !== "list" || fixedValue.length !== 1) return null;
    const inner = strippedType(builder, types, remote, type.of, fixedValue[0], suffix);
    return inner ? wrap(new GraphQLList(inner)) : null;
  }
  if (fixedValue === null || typeof fixedValue !== "object" || type.kind !== "named") return null;
  const def = types.view.types.get(type.name);
  if (def?.kind !== "INPUT_OBJECT") return null;
  const fixed = fixedValue as Record<string, unknown>;
  const fields: Record<string, ReturnType<RemoteTypes["inputValue"]>> = {};
  for (const f of types.shown(def.fields)) {
    const stripped = strippedInput(builder, types, remote, f, fixed[f.name], suffix);
    if (stripped) fields[f.name] = stripped;
  }
  // An input object needs a field: one whose every field is fixed is gone too.
  if (Object.keys(fields).length === 0) return null;
  const name = `${customTypeName(remote.customizer, type.name)}${suffix}`;
  return wrap(builder.named(name, () => new GraphQLInputObjectType({ name, ...describe(def.description), fields })));
}

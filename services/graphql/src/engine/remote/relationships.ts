/**
 * Remote relationships from a table to a remote schema's field
 * (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/):
 * each one of a tracked table resolved against the remote schemas served. The lhs columns, the
 * path of fields from the remote's query root with their fixed arguments (`"$col"` values are the
 * row's columns), and the field at its end. Those that do not resolve are inconsistent objects
 * with Hasura's reasons (errorToText in
 * server/src-lib/Hasura/RemoteSchema/SchemaCache/RemoteRelationship.hs). The legacy form
 * `{remote_schema, hasura_fields, remote_field}` is read as `to_remote_schema`.
 */
import { englishList } from "../errors/english-list.js";
import { quoted } from "../errors/metadata.js";
import { isObject, type Json, tableLabel } from "../metadata/args.js";
import type { InconsistentObject } from "../metadata/consistency.js";
import type { Metadata, QualifiedTable } from "../metadata/types.js";
import type { ComputedFieldModel, TableModel, TypeRef } from "../model/types.js";
import type { RemoteFieldDef, RemoteSchemaModel } from "./types.js";

/** One step of a relationship's path: a field of the remote (its own name) and the arguments it is given. */
export interface RemotePathStep {
  field: string;
  /** JSON templates: strings `"$column"` are the row's column values. */
  arguments: Record<string, unknown>;
}

export interface RemoteRelationshipModel {
  name: string;
  remote: RemoteSchemaModel;
  /** The lhs fields whose values each row joins on: columns (PostgreSQL names) or scalar computed fields. */
  lhs: string[];
  /** The lhs fields that are computed fields (the others are columns). */
  computedLhs: Map<string, ComputedFieldModel>;
  /** From the remote's query root to the relationship's field. */
  path: RemotePathStep[];
  /** The field at the end of the path, as the remote defines it. */
  field: RemoteFieldDef;
}

/** The served remote relationships of each table (by table key), and the metadata's that are not. */
export interface ResolvedRemoteRelationships {
  byTable: Map<string, RemoteRelationshipModel[]>;
  inconsistent: InconsistentObject[];
}

/** The `to_remote_schema` part of a remote relationship (or its legacy form), or null for another kind. */
export function toRemoteSchema(rel: Json): { remoteSchema: unknown; lhs: unknown; remoteField: unknown } | null {
  const definition = isObject(rel.definition) ? rel.definition : {};
  if (isObject(definition.to_remote_schema)) {
    const to = definition.to_remote_schema;
    return { remoteSchema: to.remote_schema, lhs: to.lhs_fields, remoteField: to.remote_field };
  }
  if (definition.remote_schema !== undefined)
    return { remoteSchema: definition.remote_schema, lhs: definition.hasura_fields, remoteField: definition.remote_field };
  return null;
}

/** A remote relationship as Hasura reports it: its create arguments, the legacy form inlined. */
export function remoteRelationshipDefinition(rel: Json, source: string, table: QualifiedTable): Json {
  const definition = isObject(rel.definition) ? rel.definition : {};
  if (definition.remote_schema !== undefined) return { source, table, name: rel.name, ...definition };
  return { definition, source, table, name: rel.name };
}

/** Hasura's moiName of a table's remote relationship. */
export function remoteRelationshipObjectName(name: unknown, table: QualifiedTable, source: string): string {
  return `remote_relationship ${String(name)} in table ${tableLabel(table)} in source ${source}`;
}

const q = (s: string) => JSON.stringify(s);

/**
 * A relationship field with its arguments by name. Hasura keeps the field's remaining arguments in
 * a hash map (stripInMap in server/src-lib/Hasura/RemoteSchema/SchemaCache/RemoteRelationship.hs),
 * so they are not in the remote's order; by name here, the order its own tests expect.
 */
export function argsByName(field: RemoteFieldDef): RemoteFieldDef {
  return { ...field, args: [...field.args].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}

/** The lhs fields a table's remote relationship (either form) joins on. */
export function remoteLhsFields(rel: Json): string[] {
  const lhs = toRemoteSchema(rel)?.lhs;
  return Array.isArray(lhs) ? lhs.map(String) : [];
}

class Invalid extends Error {}

/** A type's base (named) type. */
function baseOf(type: TypeRef): { name: string } {
  return type.kind === "named" ? { name: type.name } : baseOf(type.of);
}

/**
 * Hasura's isTypeCoercible: a literal of scalar `actual` given where `expected` is wanted (a
 * literal may stand for a list of its type, so only the base types are compared).
 */
function coercible(actual: string, expected: TypeRef): void {
  const want = baseOf(expected);
  if (want.name === "ID") {
    if (!["ID", "Int", "String", "bigint", "smallint", "uuid"].includes(actual))
      throw new Invalid(`Only ID, Int, uuid or String scalar types can be joined to the ID type, but received ${q(actual)}`);
    return;
  }
  if (actual !== want.name) throw new Invalid(`expected type ${q(want.name)} but got ${q(actual)}`);
}

/**
 * Hasura's validateType: a fixed argument's value against the type the remote wants
 * (variables must be lhs fields; literals must match; lists of at most one element; input
 * objects' fields must exist).
 */
function validateValue(value: unknown, expected: TypeRef, lhs: string[], remote: RemoteSchemaModel): void {
  if (typeof value === "string" && value.startsWith("$")) {
    if (!lhs.includes(value.slice(1))) throw new Invalid(`variable ${q(value.slice(1))} is not found`);
    return;
  }
  if (value === null) throw new Invalid("null is not allowed here");
  const scalar =
    typeof value === "string"
      ? "String"
      : typeof value === "boolean"
        ? "Boolean"
        : typeof value === "number"
          ? Number.isInteger(value)
            ? "Int"
            : "Float"
          : null;
  if (scalar !== null) {
    coercible(scalar, expected);
    return;
  }
  if (Array.isArray(value)) {
    if (value.length > 1) throw new Invalid("multiple elements in list value is not supported");
    if (expected.kind !== "list") throw new Invalid(`type ${q(baseOf(expected).name)}is not a list type`);
    for (const v of value) validateValue(v, expected.of, lhs, remote);
    return;
  }
  if (!isObject(value)) return;
  const typeName = baseOf(expected).name;
  const def = remote.introspection.types.get(typeName);
  if (!def) throw new Invalid(`type with name ${q(typeName)} not found`);
  for (const [name, v] of Object.entries(value)) {
    if (def.kind !== "INPUT_OBJECT") throw new Invalid(`type ${q(name)}not an input object type`);
    const field = def.fields.find((f) => f.name === name);
    if (!field) throw new Invalid(`argument with name ${q(name)} not found in remote schema`);
    validateValue(v, field.type, lhs, remote);
  }
}

/**
 * The computed fields a table offers as join fields besides its columns: those returning a
 * scalar and taking no arguments but the row and the session (Hasura's lhs join fields of a
 * table, server/src-lib/Hasura/RQL/DDL/Schema/Cache.hs).
 */
function joinableComputedFields(table: TableModel): Map<string, ComputedFieldModel> {
  const found = new Map<string, ComputedFieldModel>();
  for (const cf of table.computedFields.values())
    if (cf.returns.kind === "scalar" && cf.call.args.every((a) => a.kind !== "input")) found.set(cf.name, cf);
  return found;
}

/** Resolves one relationship, or throws Invalid with Hasura's reason. */
function resolveOne(rel: Json, table: TableModel, tableName: QualifiedTable, remotes: RemoteSchemaModel[]): RemoteRelationshipModel {
  const to = toRemoteSchema(rel) as NonNullable<ReturnType<typeof toRemoteSchema>>;
  const remoteName = String(to.remoteSchema);
  const remote = remotes.find((r) => r.name === remoteName);
  if (!remote) throw new Invalid(`remote schema with name ${q(remoteName)} not found`);
  const lhs = remoteLhsFields(rel);
  const joinable = joinableComputedFields(table);
  const allowed = [...table.columns.map((c) => c.name), ...joinable.keys()];
  const computedLhs = new Map<string, ComputedFieldModel>();
  for (const field of lhs) {
    const computed = joinable.get(field);
    if (computed) computedLhs.set(field, computed);
    else if (!table.columnByName.has(field)) {
      const help = allowed.length > 0 ? `, the allowed fields are ${englishList(allowed.map(q), "or")}` : "";
      throw new Invalid(
        `field with name ${q(field)}is not provided by the lhs entity${q(tableLabel(tableName))}for defining a join condition${help}`,
      );
    }
  }
  const { introspection } = remote;
  let parent = introspection.types.get(introspection.queryRoot);
  if (parent?.kind !== "OBJECT") throw new Invalid(`field with name ${q(introspection.queryRoot)} not found in remote schema`);
  const path: RemotePathStep[] = [];
  let step: unknown = to.remoteField;
  let last: RemoteFieldDef | undefined;
  let parentName = parent.name;
  while (isObject(step) && Object.keys(step).length > 0) {
    const [fieldName, call] = Object.entries(step)[0] as [string, unknown];
    const def = parent?.kind === "OBJECT" ? parent.fields.find((f) => f.name === fieldName) : undefined;
    if (!def) throw new Invalid(`remote field with name ${q(fieldName)} and type ${q(parentName)} not found`);
    const args = isObject(call) && isObject(call.arguments) ? call.arguments : {};
    for (const [argName, value] of Object.entries(args)) {
      const arg = def.args.find((a) => a.name === argName);
      if (!arg) throw new Invalid(`argument with name ${q(argName)} not found in remote schema`);
      validateValue(value, arg.type, lhs, remote);
    }
    path.push({ field: fieldName, arguments: args });
    last = def;
    parentName = baseOf(def.type).name;
    parent = introspection.types.get(parentName);
    step = isObject(call) ? call.field : undefined;
  }
  if (!last) throw new Invalid("remote_field must name a field of the remote schema");
  return { name: String(rel.name), remote, lhs, computedLhs, path, field: argsByName(last) };
}

/** Every table's remote relationships to remote schemas, resolved against `remotes` (the served ones). */
export function resolveRemoteRelationships(
  metadata: Metadata,
  tables: ReadonlyMap<string, TableModel>,
  remotes: RemoteSchemaModel[],
): ResolvedRemoteRelationships {
  const byTable = new Map<string, RemoteRelationshipModel[]>();
  const inconsistent: InconsistentObject[] = [];
  for (const source of metadata.sources) {
    for (const entry of source.tables) {
      const list = Array.isArray(entry.remote_relationships) ? entry.remote_relationships.filter(isObject) : [];
      const key = `${entry.table.schema}.${entry.table.name}`;
      const table = tables.get(key);
      // A table that is not served is reported by the tables' own checks.
      if (!table) continue;
      for (const rel of list) {
        if (!toRemoteSchema(rel)) continue;
        try {
          const resolved = resolveOne(rel, table, entry.table, remotes);
          byTable.set(key, [...(byTable.get(key) ?? []), resolved]);
        } catch (error) {
          if (!(error instanceof Invalid)) throw error;
          inconsistent.push({
            definition: remoteRelationshipDefinition(rel, source.name, entry.table),
            name: remoteRelationshipObjectName(rel.name, entry.table, source.name),
            // Hasura's context on every remote relationship error (addTableContext . addRemoteRelationshipContext in
            // buildRemoteRelationship, server/src-lib/Hasura/RQL/DDL/Schema/Cache/Fields.hs): no space before the quoted name.
            reason: `Inconsistent object: in table ${quoted(entry.table)}: in remote relationship${q(String(rel.name))}: ${error.message}`,
            type: "remote_relationship",
          });
        }
      }
    }
  }
  return { byTable, inconsistent };
}

/**
 * Joins metadata with the catalog into the model the schema and the compiler use. Tables or
 * relationships that metadata names but the database lacks are left out (Hasura reports them
 * as inconsistent objects) instead of failing the whole schema.
 */

import { type PgCatalog, type PgColumn, type PgTable, tableKey } from "../catalog/types.js";
import { catalogViewOf } from "../metadata/catalog-view.js";
import { introspectionDisabledRoles } from "../metadata/introspection-options.js";
import type {
  ArrayRelationship,
  FunctionMetadata,
  Metadata,
  ObjectRelationship,
  QualifiedTable,
  TableMetadata,
} from "../metadata/types.js";
import { buildActions } from "./build-actions.js";
import { buildComputedFields, buildTrackedFunctions } from "./build-functions.js";
import { scalarName } from "./scalars.js";
import type { ColumnModel, Model, RelationshipModel, RootFieldNames, TableModel } from "./types.js";

function qualified(table: QualifiedTable | string): QualifiedTable {
  return typeof table === "string" ? { schema: "public", name: table } : table;
}

function rootFieldNames(typeName: string, custom: TableMetadata["configuration"]): RootFieldNames {
  const defaults: RootFieldNames = {
    select: typeName,
    select_by_pk: `${typeName}_by_pk`,
    select_aggregate: `${typeName}_aggregate`,
    select_stream: `${typeName}_stream`,
    insert: `insert_${typeName}`,
    insert_one: `insert_${typeName}_one`,
    update: `update_${typeName}`,
    update_by_pk: `update_${typeName}_by_pk`,
    update_many: `update_${typeName}_many`,
    delete: `delete_${typeName}`,
    delete_by_pk: `delete_${typeName}_by_pk`,
  };
  for (const [key, value] of Object.entries(custom?.custom_root_fields ?? {})) {
    const name = typeof value === "string" ? value : value?.name;
    if (name && key in defaults) defaults[key as keyof RootFieldNames] = name;
  }
  return defaults;
}

function columnField(meta: TableMetadata, column: string): string {
  return meta.configuration?.column_config?.[column]?.custom_name ?? meta.configuration?.custom_column_names?.[column] ?? column;
}

export function buildModel(metadata: Metadata, catalog: PgCatalog, sourceName = "default"): Model {
  const source = metadata.sources.find((s) => s.name === sourceName) ?? metadata.sources[0];
  const tracked = (source?.tables ?? []).filter((t) => catalog.tables.has(tableKey(t.table.schema, t.table.name)));
  const tables = new Map<string, TableModel>();
  const roles = new Set<string>();

  for (const meta of tracked) {
    const pg = catalog.tables.get(tableKey(meta.table.schema, meta.table.name)) as PgTable;
    const typeName = meta.configuration?.custom_name ?? (pg.schema === "public" ? pg.name : `${pg.schema}_${pg.name}`);
    const columns: ColumnModel[] = pg.columns.map((c) => ({
      name: c.name,
      field: columnField(meta, c.name),
      pgType: c.type,
      scalar: scalarName(arrayElement(c) ?? c.type),
      elementType: arrayElement(c),
      nullable: c.nullable,
      generated: c.isGenerated,
      enumTable: null,
      comment: meta.configuration?.column_config?.[c.name]?.comment ?? c.comment,
    }));
    const perms = {
      select: new Map((meta.select_permissions ?? []).map((p) => [p.role, p.permission])),
      insert: new Map((meta.insert_permissions ?? []).map((p) => [p.role, p.permission])),
      update: new Map((meta.update_permissions ?? []).map((p) => [p.role, p.permission])),
      delete: new Map((meta.delete_permissions ?? []).map((p) => [p.role, p.permission])),
    };
    for (const map of Object.values(perms)) for (const role of map.keys()) roles.add(role);
    tables.set(tableKey(pg.schema, pg.name), {
      key: tableKey(pg.schema, pg.name),
      schema: pg.schema,
      name: pg.name,
      typeName,
      columns,
      columnByName: new Map(columns.map((c) => [c.name, c])),
      columnByField: new Map(columns.map((c) => [c.field, c])),
      relationships: new Map(),
      computedFields: new Map(),
      primaryKey: pg.primaryKey?.columns ?? null,
      uniqueConstraints: pg.uniqueConstraints,
      isEnum: meta.is_enum === true,
      kind: pg.kind,
      mutable: { insert: pg.insertable, update: pg.updatable, delete: pg.deletable },
      enumValues: catalog.enumValues.get(tableKey(pg.schema, pg.name)) ?? [],
      rootFields: rootFieldNames(typeName, meta.configuration),
      permissions: perms,
      comment: meta.configuration?.comment ?? pg.comment,
    });
  }

  for (const meta of tracked) {
    const table = tables.get(tableKey(meta.table.schema, meta.table.name)) as TableModel;
    const pg = catalog.tables.get(table.key) as PgTable;
    linkEnums(table, pg, tables);
    for (const rel of meta.object_relationships ?? []) addRelationship(table, pg, rel, "object", tables, catalog);
    for (const rel of meta.array_relationships ?? []) addRelationship(table, pg, rel, "array", tables, catalog);
  }
  for (const meta of tracked)
    buildComputedFields(meta, tables.get(tableKey(meta.table.schema, meta.table.name)) as TableModel, tables, catalog);
  const functions = buildTrackedFunctions((source?.functions ?? []) as FunctionMetadata[], tables, catalog);
  const { actions, customTypes } = buildActions(metadata, catalogViewOf(catalog), tables);
  for (const a of actions.values()) for (const role of a.permissions) roles.add(role);
  return { tables, functions, roles, introspectionDisabled: introspectionDisabledRoles(metadata), actions, customTypes };
}

/** The element type of a true array column (`text` for `_text`); vector types such as int2vector stay scalars. */
function arrayElement(column: PgColumn): string | null {
  return column.elementType && column.type.startsWith("_") ? column.elementType : null;
}

/** Columns with a single-column foreign key to an enum table take that table's GraphQL enum. */
function linkEnums(table: TableModel, pg: PgTable, tables: Map<string, TableModel>): void {
  for (const fk of pg.foreignKeys) {
    const target = tables.get(tableKey(fk.refSchema, fk.refTable));
    const [column] = fk.columns;
    if (!target?.isEnum || fk.columns.length !== 1 || !column) continue;
    const model = table.columnByName.get(column);
    if (model) {
      model.scalar = `${target.typeName}_enum`;
      model.enumTable = target.key;
    }
  }
}

function addRelationship(
  table: TableModel,
  pg: PgTable,
  rel: ObjectRelationship | ArrayRelationship,
  kind: "object" | "array",
  tables: Map<string, TableModel>,
  catalog: PgCatalog,
): void {
  const resolved = resolveMapping(table, pg, rel, catalog);
  if (!resolved || !tables.has(resolved.target)) return;
  const model: RelationshipModel = { name: rel.name, kind, insertAfter: kind === "array", ...resolved };
  table.relationships.set(rel.name, model);
}

function resolveMapping(
  table: TableModel,
  pg: PgTable,
  rel: ObjectRelationship | ArrayRelationship,
  catalog: PgCatalog,
): (Omit<RelationshipModel, "name" | "kind" | "insertAfter"> & { insertAfter?: boolean }) | null {
  const using = rel.using;
  if (using.manual_configuration) {
    const remote = qualified(using.manual_configuration.remote_table);
    return {
      target: tableKey(remote.schema, remote.name),
      mapping: Object.entries(using.manual_configuration.column_mapping),
      nullable: true,
      ...(using.manual_configuration.insertion_order === "after_parent" ? { insertAfter: true } : {}),
    };
  }
  const fkOn = using.foreign_key_constraint_on;
  if (fkOn === undefined) return null;
  if (typeof fkOn === "string" || Array.isArray(fkOn)) {
    const columns = typeof fkOn === "string" ? [fkOn] : fkOn;
    const fk = pg.foreignKeys.find((f) => sameColumns(f.columns, columns));
    if (!fk) return null;
    return {
      target: tableKey(fk.refSchema, fk.refTable),
      mapping: fk.columns.map((c, i) => [c, fk.refColumns[i] as string]),
      nullable: fk.columns.some((c) => table.columnByName.get(c)?.nullable ?? true),
    };
  }
  const remote = qualified(fkOn.table);
  const remoteTable = catalog.tables.get(tableKey(remote.schema, remote.name));
  const columns = fkOn.columns ?? (fkOn.column ? [fkOn.column] : []);
  const fk = remoteTable?.foreignKeys.find(
    (f) => sameColumns(f.columns, columns) && f.refSchema === table.schema && f.refTable === table.name,
  );
  if (!fk) return null;
  return {
    target: tableKey(remote.schema, remote.name),
    mapping: fk.refColumns.map((c, i) => [c, fk.columns[i] as string]),
    nullable: true,
    // The other table holds the key: its row is written after this one.
    insertAfter: true,
  };
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c));
}

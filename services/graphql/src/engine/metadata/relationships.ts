/**
 * Object and array relationships: checking them against the catalog, and the create / drop /
 * rename / comment operations. A relationship is valid when its foreign key (or, for a manual
 * configuration, its columns) exists and its target table is tracked; otherwise Hasura would
 * count it an inconsistent object, and creating it fails with that reason.
 */
import { dependencyError, fieldConflict, inconsistentObject, relationshipNotFound } from "../errors/index.js";
import {
  argsObject,
  at,
  optionalBoolean,
  optionalString,
  qualifiedTable,
  quoted,
  requireKey,
  requireString,
  sameTable,
  sourceName,
  tableLabel,
} from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import {
  ARGS,
  describeObject,
  fieldNames,
  findSource,
  findTable,
  type Operation,
  requireTable,
  setOrDrop,
  success,
  withTable,
} from "./edit.js";
import { normalizeRelationship } from "./normalize.js";
import { boolExpUsesField, PERMISSION_KINDS, type PermissionKind, renameFieldInBoolExp } from "./permissions.js";
import type { ArrayRelationship, ObjectRelationship, QualifiedTable, SourceMetadata, TableMetadata } from "./types.js";

export type RelationshipKind = "object" | "array";
type Relationship = ObjectRelationship | ArrayRelationship;

export interface RelationshipCheck {
  /** The table the relationship points at, when that could be worked out. */
  target?: QualifiedTable;
  /** Why the relationship is inconsistent; absent when it is fine. */
  problem?: string;
}

const NO_FKEY = "no foreign constraint exists on the given column(s)";
const MANY_FKEYS = "more than one foreign key constraint exists on the given column(s)";

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c));
}

function columnsOf(fk: { column?: string; columns?: string[] | string }): string[] {
  if (typeof fk.columns === "string") return [fk.columns];
  return fk.columns ?? (fk.column ? [fk.column] : []);
}

function asQualified(table: QualifiedTable | string): QualifiedTable {
  return typeof table === "string" ? { schema: "public", name: table } : table;
}

/** Where a relationship points and, if it is broken, why (Hasura's reason text). */
export function checkRelationship(
  source: SourceMetadata,
  owner: QualifiedTable,
  rel: Relationship,
  catalog: CatalogView,
): RelationshipCheck {
  const tracked = (table: QualifiedTable) => findTable(source, table) !== undefined;
  const notTracked = (table: QualifiedTable) => `table ${quoted(table)} is not tracked`;
  const noField = (table: QualifiedTable, column: string) => `table ${quoted(table)} has no field named "${column}"`;
  const context = `in table ${quoted(owner)}: in relationship "${rel.name}": `;

  const manual = rel.using.manual_configuration;
  if (manual) {
    const target = asQualified(manual.remote_table);
    if (!tracked(target)) return { target, problem: notTracked(target) };
    const ownerColumns = catalog.columns(owner.schema, owner.name) ?? [];
    const targetColumns = catalog.columns(target.schema, target.name) ?? [];
    for (const [from, to] of Object.entries(manual.column_mapping)) {
      if (!ownerColumns.includes(from)) return { target, problem: noField(owner, from) };
      if (!targetColumns.includes(to)) return { target, problem: noField(target, to) };
    }
    return { target };
  }

  const fk = rel.using.foreign_key_constraint_on;
  if (fk === undefined) return { problem: `${context}invalid relationship definition` };
  if (typeof fk === "string" || Array.isArray(fk)) {
    const columns = typeof fk === "string" ? [fk] : fk;
    const matches = catalog.foreignKeys(owner.schema, owner.name).filter((f) => sameColumns(f.columns, columns));
    if (matches.length !== 1) return { problem: context + (matches.length === 0 ? NO_FKEY : MANY_FKEYS) };
    const only = matches[0] as { refSchema: string; refTable: string };
    const target = { schema: only.refSchema, name: only.refTable };
    return tracked(target) ? { target } : { target, problem: notTracked(target) };
  }

  const target = asQualified(fk.table);
  if (!tracked(target)) return { target, problem: notTracked(target) };
  const columns = columnsOf(fk);
  const matches = catalog
    .foreignKeys(target.schema, target.name)
    .filter((f) => f.refSchema === owner.schema && f.refTable === owner.name && sameColumns(f.columns, columns));
  if (matches.length !== 1) return { target, problem: context + (matches.length === 0 ? NO_FKEY : MANY_FKEYS) };
  return { target };
}

/** Relationships of other tables (or this one) that point at `target`, as Hasura names them. */
export function relationshipsInto(
  source: SourceMetadata,
  target: QualifiedTable,
  catalog: CatalogView,
): { owner: QualifiedTable; name: string }[] {
  const found: { owner: QualifiedTable; name: string }[] = [];
  for (const table of source.tables) {
    if (sameTable(table.table, target)) continue;
    for (const rel of [...(table.object_relationships ?? []), ...(table.array_relationships ?? [])]) {
      const pointsAt = checkRelationship(source, table.table, rel, catalog).target;
      if (pointsAt && sameTable(pointsAt, target)) found.push({ owner: table.table, name: rel.name });
    }
  }
  return found;
}

export function removeRelationship(table: TableMetadata, name: string): TableMetadata {
  const withoutObject = setOrDrop(
    table,
    "object_relationships",
    table.object_relationships?.filter((r) => r.name !== name),
  );
  return setOrDrop(
    withoutObject,
    "array_relationships",
    table.array_relationships?.filter((r) => r.name !== name),
  );
}

function findRelationship(table: TableMetadata, name: string): { rel: Relationship; kind: RelationshipKind } | undefined {
  const object = table.object_relationships?.find((r) => r.name === name);
  if (object) return { rel: object, kind: "object" };
  const array = table.array_relationships?.find((r) => r.name === name);
  return array ? { rel: array, kind: "array" } : undefined;
}

function requireRelationship(table: TableMetadata, name: string): { rel: Relationship; kind: RelationshipKind } {
  const found = findRelationship(table, name);
  if (!found) throw relationshipNotFound(name);
  return found;
}

/** This table's permissions whose rules use the field (Hasura's dependents of a relationship or column). */
export function permissionsUsing(table: TableMetadata, field: string): { kind: PermissionKind; role: string }[] {
  const found: { kind: PermissionKind; role: string }[] = [];
  for (const kind of PERMISSION_KINDS) {
    for (const perm of table[`${kind}_permissions`] ?? []) {
      const p = perm.permission as { filter?: unknown; check?: unknown };
      if (boolExpUsesField(p.filter, field) || boolExpUsesField(p.check, field)) found.push({ kind, role: perm.role });
    }
  }
  return found;
}

function createRelationship(kind: RelationshipKind): Operation {
  return (metadata, rawArgs, catalog) => {
    const args = argsObject(rawArgs, ARGS);
    const source = sourceName(args, ARGS);
    const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
    const { table: _t, source: _s, ...definition } = args;
    const rel = kind === "object" ? normalizeRelationship(definition, "object", ARGS) : normalizeRelationship(definition, "array", ARGS);
    const table = requireTable(metadata, source, tableName);
    if (fieldNames(table, catalog).has(rel.name)) throw fieldConflict(rel.name, tableName);
    const check = checkRelationship(findSource(metadata, source), tableName, rel, catalog);
    if (check.problem) {
      const type = kind === "object" ? "object_relation" : "array_relation";
      throw inconsistentObject(check.problem, [
        {
          definition: { ...rel, source, table: tableName },
          name: `${type} ${rel.name} in table ${tableLabel(tableName)} in source ${source}`,
          reason: `Inconsistent object: ${check.problem}`,
          type,
        },
      ]);
    }
    return success(
      withTable(metadata, source, tableName, (t) =>
        kind === "object"
          ? { ...t, object_relationships: [...(t.object_relationships ?? []), rel as ObjectRelationship] }
          : { ...t, array_relationships: [...(t.array_relationships ?? []), rel as ArrayRelationship] },
      ),
    );
  };
}

export const createObjectRelationship = createRelationship("object");
export const createArrayRelationship = createRelationship("array");

export const dropRelationship: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "relationship", ARGS);
  const cascade = optionalBoolean(args, "cascade", ARGS) ?? false;
  const table = requireTable(metadata, source, tableName);
  requireRelationship(table, name);
  const dependents = permissionsUsing(table, name);
  if (dependents.length > 0 && !cascade) {
    throw dependencyError(dependents.map((d) => describeObject("permission", tableName, `${d.role}.${d.kind}`, source)));
  }
  return success(
    withTable(metadata, source, tableName, (t) => {
      let next = removeRelationship(t, name);
      for (const d of dependents) {
        const key = `${d.kind}_permissions` as const;
        next = setOrDrop(next, key, (next[key] as { role: string }[] | undefined)?.filter((p) => p.role !== d.role) as never);
      }
      return next;
    }),
  );
};

export const renameRelationship: Operation = (metadata, rawArgs, catalog) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "name", ARGS);
  const newName = requireString(args, "new_name", ARGS);
  const table = requireTable(metadata, source, tableName);
  requireRelationship(table, name);
  if (newName !== name && fieldNames(table, catalog).has(newName)) throw fieldConflict(newName, tableName);
  const rename = <R extends Relationship>(rels: R[] | undefined) => rels?.map((r) => (r.name === name ? { ...r, name: newName } : r));
  return success(
    withTable(metadata, source, tableName, (t) => {
      const next: TableMetadata = { ...t };
      if (t.object_relationships) next.object_relationships = rename(t.object_relationships);
      if (t.array_relationships) next.array_relationships = rename(t.array_relationships);
      // Permission rules name relationships; Hasura rewrites them on rename.
      for (const kind of PERMISSION_KINDS) {
        const key = `${kind}_permissions` as const;
        const perms = t[key] as { permission: Record<string, unknown> }[] | undefined;
        if (!perms) continue;
        next[key] = perms.map((p) => ({
          ...p,
          permission: {
            ...p.permission,
            ...(p.permission.filter !== undefined ? { filter: renameFieldInBoolExp(p.permission.filter, name, newName) } : {}),
            ...(p.permission.check !== undefined && p.permission.check !== null
              ? { check: renameFieldInBoolExp(p.permission.check, name, newName) }
              : {}),
          },
        })) as never;
      }
      return next;
    }),
  );
};

export const setRelationshipComment: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "relationship", ARGS);
  const comment = optionalString(args, "comment", ARGS);
  requireRelationship(requireTable(metadata, source, tableName), name);
  const update = <R extends Relationship>(rels: R[] | undefined) =>
    rels?.map((r) => (r.name === name ? setOrDrop(r, "comment", comment) : r));
  return success(
    withTable(metadata, source, tableName, (t) => ({
      ...t,
      ...(t.object_relationships ? { object_relationships: update(t.object_relationships) } : {}),
      ...(t.array_relationships ? { array_relationships: update(t.array_relationships) } : {}),
    })),
  );
};

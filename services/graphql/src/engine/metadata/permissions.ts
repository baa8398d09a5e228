/**
 * Select / insert / update / delete permissions: create, drop and comment, plus the walk over
 * permission rules that relationship operations need (a rule names relationships by field
 * name, so dropping or renaming one must look inside the rules of its own table).
 */
import { commentedPermissionNotFound, inconsistentObject, permissionExists, permissionNotFound } from "../errors/index.js";
import {
  argsObject,
  asArray,
  asObject,
  at,
  isObject,
  type Json,
  optionalString,
  parseFailed,
  qualifiedTable,
  quoted,
  requireKey,
  requireString,
  sourceName,
  tableLabel,
} from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { ARGS, findSource, type Operation, requireTable, setOrDrop, success, withTable } from "./edit.js";
import { checkPermissionComputedFields } from "./functions.js";
import type { QualifiedTable, RolePermission, TableMetadata } from "./types.js";

export const PERMISSION_KINDS = ["insert", "select", "update", "delete"] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

/** Keys Hasura's parser requires in each kind of permission. */
const REQUIRED: Record<PermissionKind, readonly string[]> = {
  select: ["columns", "filter"],
  insert: ["check"],
  update: ["columns", "filter"],
  delete: ["filter"],
};

const LOGICAL_LISTS = new Set(["_and", "_or", "$and", "$or"]);
const LOGICAL_NOT = new Set(["_not", "$not"]);

function visitBoolExp(exp: unknown, onField: (field: string) => void): void {
  if (!isObject(exp)) return;
  for (const [key, value] of Object.entries(exp)) {
    if (LOGICAL_LISTS.has(key)) {
      for (const item of Array.isArray(value) ? value : [value]) visitBoolExp(item, onField);
    } else if (LOGICAL_NOT.has(key)) {
      visitBoolExp(value, onField);
    } else if (key !== "_exists") {
      onField(key);
    }
  }
}

/** Whether a rule refers to `field` of its own table (not through a relationship). */
export function boolExpUsesField(exp: unknown, field: string): boolean {
  let used = false;
  visitBoolExp(exp, (key) => {
    if (key === field) used = true;
  });
  return used;
}

/** Renames `from` to `to` where a rule refers to it on its own table. */
export function renameFieldInBoolExp(exp: unknown, from: string, to: string): unknown {
  if (!isObject(exp)) return exp;
  const out: Json = {};
  for (const [key, value] of Object.entries(exp)) {
    if (LOGICAL_LISTS.has(key))
      out[key] = Array.isArray(value) ? value.map((v) => renameFieldInBoolExp(v, from, to)) : renameFieldInBoolExp(value, from, to);
    else if (LOGICAL_NOT.has(key)) out[key] = renameFieldInBoolExp(value, from, to);
    else out[key === from ? to : key] = value;
  }
  return out;
}

function permissionsKey(kind: PermissionKind) {
  return `${kind}_permissions` as const;
}

function permissionsOf(table: TableMetadata, kind: PermissionKind): RolePermission<unknown>[] {
  return (table[permissionsKey(kind)] ?? []) as RolePermission<unknown>[];
}

/** The columns a permission names (its column list and presets) that the table does not have. */
export function missingColumns(permission: Json, table: QualifiedTable, catalog: CatalogView, path: string): string[] {
  const existing = new Set(catalog.columns(table.schema, table.name) ?? []);
  const named: string[] = [];
  const columns = permission.columns;
  if (columns !== undefined && columns !== "*") {
    asArray(columns, at(path, "columns")).forEach((c, i) => {
      if (typeof c !== "string") throw parseFailed("expected String", at(at(path, "columns"), i));
      named.push(c);
    });
  }
  if (permission.set !== undefined && permission.set !== null) named.push(...Object.keys(asObject(permission.set, at(path, "set"))));
  return named.filter((c) => !existing.has(c));
}

function createPermission(kind: PermissionKind): Operation {
  return (metadata, rawArgs, catalog) => {
    const args = argsObject(rawArgs, ARGS);
    const source = sourceName(args, ARGS);
    const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
    const role = requireString(args, "role", ARGS);
    const permPath = at(ARGS, "permission");
    const permission = asObject(requireKey(args, "permission", ARGS), permPath);
    for (const key of REQUIRED[kind]) requireKey(permission, key, permPath);
    const comment = optionalString(args, "comment", ARGS);
    const table = requireTable(metadata, source, tableName);
    // admin has every permission implicitly, so Hasura reports it as already defined.
    if (role === "admin" || permissionsOf(table, kind).some((p) => p.role === role)) {
      throw permissionExists(kind, tableName, role);
    }
    const missing = missingColumns(permission, tableName, catalog, permPath);
    if (missing.length > 0) {
      const reason = `in table ${quoted(tableName)}: in permission for role "${role}": column "${missing[0]}" does not exist`;
      throw inconsistentObject(reason, [
        {
          definition: { role, permission, source, table: tableName, ...(comment ? { comment } : {}) },
          name: `permission ${tableLabel(tableName)}.${role}.${kind} in source ${source}`,
          reason: `Inconsistent object: ${reason}`,
          type: `${kind}_permission`,
        },
      ]);
    }
    if (kind === "select")
      checkPermissionComputedFields(findSource(metadata, source), tableName, role, permission.computed_fields, catalog);
    const entry: RolePermission<unknown> = comment === undefined ? { role, permission } : { role, permission, comment };
    const key = permissionsKey(kind);
    return success(withTable(metadata, source, tableName, (t) => ({ ...t, [key]: [...permissionsOf(t, kind), entry] })));
  };
}

function dropPermission(kind: PermissionKind): Operation {
  return (metadata, rawArgs) => {
    const args = argsObject(rawArgs, ARGS);
    const source = sourceName(args, ARGS);
    const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
    const role = requireString(args, "role", ARGS);
    const table = requireTable(metadata, source, tableName);
    if (!permissionsOf(table, kind).some((p) => p.role === role)) {
      throw permissionNotFound(kind, tableName, role);
    }
    const key = permissionsKey(kind);
    return success(
      withTable(metadata, source, tableName, (t) =>
        setOrDrop(t, key, permissionsOf(t, kind).filter((p) => p.role !== role) as TableMetadata[typeof key]),
      ),
    );
  };
}

export const setPermissionComment: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const tableName = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const role = requireString(args, "role", ARGS);
  const type = requireString(args, "type", ARGS);
  if (!(PERMISSION_KINDS as readonly string[]).includes(type)) {
    throw parseFailed(`expected one of insert, select, update, delete`, at(ARGS, "type"));
  }
  const kind = type as PermissionKind;
  const comment = optionalString(args, "comment", ARGS);
  const table = requireTable(metadata, source, tableName);
  if (!permissionsOf(table, kind).some((p) => p.role === role)) {
    throw commentedPermissionNotFound(kind, tableName, role);
  }
  const key = permissionsKey(kind);
  return success(
    withTable(metadata, source, tableName, (t) => ({
      ...t,
      [key]: permissionsOf(t, kind).map((p) => (p.role === role ? setOrDrop(p, "comment", comment) : p)),
    })),
  );
};

export const permissionOperations: Record<string, Operation> = Object.fromEntries(
  PERMISSION_KINDS.flatMap((kind) => [
    [`create_${kind}_permission`, createPermission(kind)],
    [`drop_${kind}_permission`, dropPermission(kind)],
  ]),
);

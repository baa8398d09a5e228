/**
 * Operations on tracked functions besides tracking: set_function_customization and function
 * permissions (create/drop_function_permission). A function permission lets a role call a
 * function exposed as a mutation; query functions follow the select permission of the table
 * they return (Hasura's inferred function permissions).
 */
import {
  duplicateRootFieldName,
  functionNotTracked,
  functionPermissionExists,
  functionPermissionNeedsSelect,
  functionPermissionNotFound,
} from "../errors/index.js";
import { argsObject, asObject, at, qualifiedTable, requireKey, requireString, sameTable, sourceName } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { ARGS, findSource, findTable, type Operation, setOrDrop, success, withSource } from "./edit.js";
import { checkTrackedFunction } from "./functions.js";
import type { FunctionMetadata, Metadata, QualifiedTable } from "./types.js";

interface Target {
  source: string;
  fn: QualifiedTable;
  entry: FunctionMetadata;
}

function trackedFunction(metadata: Metadata, rawArgs: unknown): Target & { args: Record<string, unknown> } {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const fn = qualifiedTable(requireKey(args, "function", ARGS), at(ARGS, "function"));
  const entry = ((findSource(metadata, source).functions ?? []) as FunctionMetadata[]).find((f) => sameTable(f.function, fn));
  if (!entry) throw functionNotTracked(fn, source);
  return { args, source, fn, entry };
}

function replaceEntry(metadata: Metadata, target: Target, entry: FunctionMetadata): Metadata {
  return withSource(metadata, target.source, (s) => ({
    ...s,
    functions: ((s.functions ?? []) as FunctionMetadata[]).map((f) => (sameTable(f.function, target.fn) ? entry : f)),
  }));
}

export const setFunctionCustomization: Operation = (metadata, rawArgs, catalog) => {
  const target = trackedFunction(metadata, rawArgs);
  const configuration = asObject(target.args.configuration ?? {}, at(ARGS, "configuration"));
  const roots = configuration.custom_root_fields;
  if (roots !== undefined && roots !== null) {
    const names = Object.values(asObject(roots, at(at(ARGS, "configuration"), "custom_root_fields"))).filter((n) => typeof n === "string");
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate !== undefined) {
      throw duplicateRootFieldName(String(duplicate));
    }
  }
  const entry = setOrDrop(target.entry, "configuration", Object.keys(configuration).length > 0 ? configuration : undefined);
  checkTrackedFunction(findSource(metadata, target.source), entry, catalog);
  return success(replaceEntry(metadata, target, entry));
};

function returnTableHasSelect(metadata: Metadata, target: Target, role: string, catalog: CatalogView): boolean {
  const overloads = catalog.functions?.(target.fn.schema, target.fn.name);
  const returned = overloads?.length === 1 ? overloads[0]?.returnTable : null;
  if (!returned) return true;
  const table = findTable(findSource(metadata, target.source), returned);
  return (table?.select_permissions ?? []).some((p) => p.role === role);
}

export const createFunctionPermission: Operation = (metadata, rawArgs, catalog) => {
  const target = trackedFunction(metadata, rawArgs);
  const role = requireString(target.args, "role", ARGS);
  const permissions = (target.entry.permissions ?? []) as Array<{ role: string }>;
  if (permissions.some((p) => p.role === role)) {
    throw functionPermissionExists(role, target.fn, target.source);
  }
  if (!returnTableHasSelect(metadata, target, role, catalog)) {
    const returned = catalog.functions?.(target.fn.schema, target.fn.name)?.[0]?.returnTable as QualifiedTable;
    throw functionPermissionNeedsSelect(returned, role);
  }
  return success(replaceEntry(metadata, target, { ...target.entry, permissions: [...permissions, { role }] }));
};

export const dropFunctionPermission: Operation = (metadata, rawArgs) => {
  const target = trackedFunction(metadata, rawArgs);
  const role = requireString(target.args, "role", ARGS);
  const permissions = (target.entry.permissions ?? []) as Array<{ role: string }>;
  if (!permissions.some((p) => p.role === role)) {
    throw functionPermissionNotFound(role, target.fn, target.source);
  }
  const kept = permissions.filter((p) => p.role !== role);
  return success(replaceEntry(metadata, target, setOrDrop(target.entry, "permissions", kept)));
};

/**
 * Errors of the metadata API (/v1/metadata, /v1/query, /v2/query) for the objects the engine
 * serves: sources, tables, functions, computed fields, relationships and permissions. Hasura
 * raises them inside the command's `args`, hence the `$.args` path of most; status 400.
 * Commands for objects kept but not served are in metadata-unserved.ts.
 */
import type { QualifiedTable } from "../metadata/types.js";
import { HasuraError } from "./hasura-error.js";

const ARGS = "$.args";

/** How Hasura prints a qualified name: bare for the public schema, `schema.name` otherwise. */
export function tableLabel(table: QualifiedTable): string {
  return table.schema === "public" ? table.name : `${table.schema}.${table.name}`;
}

/** Hasura's `<<>` rendering: the name in double quotes. */
export function quoted(table: QualifiedTable | string): string {
  return `"${typeof table === "string" ? table : tableLabel(table)}"`;
}

// --- The request (server/src-lib/Hasura/Server/API/Metadata.hs, Query.hs; Aeson's parse errors).

/** A request body Aeson would not decode, in Aeson's words (`key "table" not found`, `expected Object, but encountered String`). */
export function parseFailed(message: string, path: string): HasuraError {
  return new HasuraError("parse-failed", message, path, 400);
}

/** A stale `resource_version` (HTTP 409). */
export function resourceVersionConflict(expected: number): HasuraError {
  return new HasuraError("conflict", `metadata resource version referenced (${expected}) did not match current version`, "$", 409);
}

/** replace_metadata without allow_inconsistent_metadata, when the result is inconsistent (server/src-lib/Hasura/RQL/DDL/Metadata.hs). */
export function inconsistentMetadata(inconsistent: unknown): HasuraError {
  return new HasuraError("unexpected", "cannot continue due to inconsistent metadata", ARGS, 400, { internal: inconsistent });
}

/** The rebuild failure for the object a command just added (`withNewInconsistentObjsCheck`). */
export function inconsistentObject(reason: string, internal?: unknown): HasuraError {
  return new HasuraError("invalid-configuration", `Inconsistent object: ${reason}`, ARGS, 400, { internal });
}

/** A drop refused for the objects that depend on it (`reportDependentObjectsExist`); `objects` as `describeObject` names them. */
export function dependencyError(objects: readonly string[]): HasuraError {
  return new HasuraError("dependency-error", `cannot drop due to the following dependent objects: ${objects.join(", ")}`, ARGS);
}

/** run_sql's own wording of it, space before the colon (server/src-lib/Hasura/Backends/Postgres/DDL/RunSQL.hs). */
export function runSqlDependencyError(objects: readonly string[]): HasuraError {
  return new HasuraError("dependency-error", `cannot drop due to the following dependent objects : ${objects.join(", ")}`, "$");
}

// --- Sources and tables (server/src-lib/Hasura/RQL/DDL/Schema/Source.hs, Schema/Table.hs).

export function sourceNotFound(name: string, path = ARGS): HasuraError {
  return new HasuraError("not-exists", `source with name "${name}" does not exist`, path);
}

/** A table the source's metadata does not track. */
export function tableNotTracked(table: QualifiedTable, source: string, path = ARGS): HasuraError {
  return new HasuraError("not-exists", `table ${quoted(table)} does not exist in source: ${source}`, path);
}

export function alreadyTracked(table: QualifiedTable): HasuraError {
  return new HasuraError("already-tracked", `view/table already tracked: ${quoted(table)}`, ARGS);
}

export function alreadyUntracked(table: QualifiedTable): HasuraError {
  return new HasuraError("already-untracked", `view/table already untracked: ${quoted(table)}`, ARGS);
}

/** track_table of a table with the name of a tracked function. */
export function functionNameTaken(table: QualifiedTable): HasuraError {
  return new HasuraError("not-supported", `function with name ${quoted(table)} already exists`, ARGS);
}

export function noSuchTable(table: QualifiedTable): HasuraError {
  return new HasuraError("not-exists", `no such table/view exists in source: ${quoted(table)}`, ARGS);
}

/** A relationship or computed field named like another field of the table. */
export function fieldConflict(name: string, table: QualifiedTable): HasuraError {
  return new HasuraError("already-exists", `field with name "${name}" already exists in table ${quoted(table)}`, ARGS);
}

// --- Functions and computed fields (server/src-lib/Hasura/RQL/DDL/Schema/Function.hs, ComputedField.hs).

export function functionAlreadyTracked(fn: QualifiedTable): HasuraError {
  return new HasuraError("already-tracked", `function already tracked: ${quoted(fn)}`, ARGS);
}

/** track_function of a function with the name of a tracked table. */
export function tableNameTaken(fn: QualifiedTable): HasuraError {
  return new HasuraError("not-supported", `table with name ${quoted(fn)} already exists`, ARGS);
}

export function noSuchFunction(fn: QualifiedTable): HasuraError {
  return new HasuraError("not-exists", `no such function exists in source: ${quoted(fn)}`, ARGS);
}

/** untrack_function of a function that is not tracked. */
export function functionNotInMetadata(fn: QualifiedTable): HasuraError {
  return new HasuraError("not-exists", `function not found in metadata: ${quoted(fn)}`, ARGS);
}

/** set_function_customization and function permissions on a function that is not tracked. */
export function functionNotTracked(fn: QualifiedTable, source: string): HasuraError {
  return new HasuraError("not-exists", `function ${quoted(fn)} does not exist in source: ${source}`, ARGS);
}

export function functionOverloaded(fn: QualifiedTable): HasuraError {
  return new HasuraError("not-supported", `function ${quoted(fn)} is overloaded. Overloaded functions are not supported`, ARGS);
}

/** A function Hasura refuses to track outright (its session argument); `message` names the function and the reason. */
export function functionNotTrackable(message: string): HasuraError {
  return new HasuraError("not-supported", message, ARGS);
}

/** Two custom root fields of a function given the same name. */
export function duplicateRootFieldName(name: string): HasuraError {
  return new HasuraError(
    "parse-failed",
    `the following custom root field names are duplicated: "${name}" and "${name}"`,
    `${ARGS}.configuration.custom_root_fields`,
  );
}

export function computedFieldNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `computed field "${name}" does not exist`, ARGS);
}

// --- Permissions and relationships (server/src-lib/Hasura/RQL/DDL/Permission.hs, Relationship.hs).

/** `kind` is select, insert, update or delete. */
export function permissionExists(kind: string, table: QualifiedTable, role: string): HasuraError {
  return new HasuraError("already-exists", `${kind} permission already defined on table ${quoted(table)} with role "${role}"`, ARGS);
}

/** drop_*_permission of a permission that is not there. */
export function permissionNotFound(kind: string, table: QualifiedTable, role: string): HasuraError {
  return new HasuraError("bad-request", `${kind} permission on ${quoted(table)} for role "${role}" does not exist`, ARGS);
}

/** set_permission_comment of a permission that is not there (another code, and the kind quoted). */
export function commentedPermissionNotFound(kind: string, table: QualifiedTable, role: string): HasuraError {
  return new HasuraError("permission-denied", `'${kind}' permission on ${quoted(table)} for role "${role}" does not exist`, ARGS);
}

/** A select permission listing a computed field the table does not have; `where` is `in table "t": in permission for role "r"`. */
export function permittedComputedFieldNotFound(where: string, name: string): HasuraError {
  return new HasuraError("constraint-violation", `${where}: computed field "${name}" does not exist`, ARGS);
}

/** A select permission listing a computed field that returns table rows. */
export function permittedComputedFieldDerived(where: string, name: string, returns: QualifiedTable): HasuraError {
  return new HasuraError(
    "constraint-violation",
    `${where}: select permissions on computed field "${name}" are auto-derived from the permissions on its returning table ${quoted(returns)} and cannot be specified manually`,
    ARGS,
  );
}

export function functionPermissionExists(role: string, fn: QualifiedTable, source: string): HasuraError {
  return new HasuraError(
    "already-exists",
    `permission of role "${role}" already exists for function ${quoted(fn)} in source: ${source}`,
    ARGS,
  );
}

export function functionPermissionNotFound(role: string, fn: QualifiedTable, source: string): HasuraError {
  return new HasuraError("not-exists", `permission of role "${role}" does not exist for function ${quoted(fn)} in source: ${source}`, ARGS);
}

/** A function permission for a role that cannot read the function's return table. */
export function functionPermissionNeedsSelect(returns: QualifiedTable, role: string): HasuraError {
  return new HasuraError(
    "not-supported",
    `function permission can only be added when the function's return table ${quoted(returns)} has select permission configured for role: "${role}"`,
    ARGS,
  );
}

export function relationshipNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `relationship "${name}" does not exist`, ARGS);
}

/** pg_track_tables / pg_untrack_tables where every table failed (their warnings in `internal`). */
export function allTablesFailed(kind: "track" | "untrack", warnings: unknown[]): HasuraError {
  return new HasuraError("invalid-configuration", `all tables failed to ${kind}`, ARGS, 400, { internal: warnings });
}

/** A command with `allow_warnings: false` that warned (Hasura's MetadataWarnings). */
export function metadataWarnings(warnings: unknown[]): HasuraError {
  return new HasuraError("metadata-warnings", "failed due to metadata warnings", ARGS, 400, { internal: warnings });
}

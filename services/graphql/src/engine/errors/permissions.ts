/**
 * Errors of what a role may do: session variables its permissions need, permissions it lacks,
 * and the admin-only endpoints.
 */
import { HasuraError } from "./hasura-error.js";

/** A session variable a permission or a function reads, absent from the request (server/src-lib/Hasura/Backends/Postgres/Execute/Prepare.hs). */
export function missingSessionVariable(name: string): HasuraError {
  return new HasuraError("not-found", `missing session variable: "${name}"`);
}

/** The role cannot read the table (the schema normally hides such fields, so this is a last guard). */
export function noSelectPermission(table: string, role: string): HasuraError {
  return new HasuraError("permission-error", `no select permission on table "${table}" for role "${role}"`);
}

/** The role cannot insert/update/delete on the table (`what` is the kind). */
export function noWritePermission(what: string, table: string): HasuraError {
  return new HasuraError("permission-error", `${what} permission not found on table "${table}"`);
}

/** A written row the permission's `check` refuses (Hasura's `hdb_catalog.check_violation` in its mutations). */
export function permissionCheckFailed(path: string): HasuraError {
  return new HasuraError("permission-error", "check constraint of an insert/update permission has failed", path);
}

/** /v1/metadata and /v1/query asked by a role other than admin (`onlyAdmin` in server/src-lib/Hasura/Server/App.hs). */
export function adminOnly(): HasuraError {
  return new HasuraError("access-denied", "restricted access : admin only", "$", 400);
}

/** A role listed in graphql_schema_introspection.disabled_for_roles asked for `__schema` or `__type`. */
export function introspectionDisabled(role: string): HasuraError {
  return new HasuraError("not-supported", `introspection is disabled for role: ${JSON.stringify(role)}`, "$");
}

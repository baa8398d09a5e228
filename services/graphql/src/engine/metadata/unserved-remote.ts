/**
 * Remote schema permission and remote relationship commands, with Hasura's argument shapes and
 * errors (server/src-lib/Hasura/RemoteSchema/MetadataAPI/Permission.hs,
 * server/src-lib/Hasura/RQL/DDL/RemoteRelationship.hs). A permission is checked against the
 * remote's schema before it is added (remote/permission.ts); a table's relationship to a remote
 * schema (remote/relationships.ts) that does not resolve refuses its command.
 */
import { parse } from "graphql";
import {
  notARemoteRelationship,
  objectInconsistent,
  remotePermissionsDisabled,
  remoteRelationshipNotFound,
  remoteSchemaOfPermissionNotFound,
  remoteSchemaPermissionExists,
  remoteSchemaPermissionNotFound,
} from "../errors/index.js";
import type { RemoteSchemaAccess } from "../remote/registry.js";
import { remoteRelationshipObjectName } from "../remote/relationships.js";
import {
  argsObject,
  asObject,
  at,
  isObject,
  type Json,
  optionalString,
  parseFailed,
  qualifiedTable,
  requireKey,
  requireString,
  sourceName,
} from "./args.js";
import { ARGS, fieldNames, type Operation, requireTable, setOrDrop, success, withTable } from "./edit.js";
import { findRemoteSchema, replaceRemoteSchema } from "./remote-schemas.js";
import type { Metadata, QualifiedTable, TableMetadata } from "./types.js";
import { tableList } from "./unserved.js";

function permissionArgs(raw: unknown): { schema: string; role: string; args: Json } {
  const args = argsObject(raw, ARGS);
  return { schema: requireString(args, "remote_schema", ARGS), role: requireString(args, "role", ARGS), args };
}

function permissionsOf(metadata: Metadata, schema: string): Json[] {
  const found = findRemoteSchema(metadata, schema);
  if (!found) throw remoteSchemaOfPermissionNotFound(schema);
  return Array.isArray(found.permissions) ? found.permissions.filter(isObject) : [];
}

/**
 * runAddRemoteSchemaPermissions: refused unless permissions are enabled, for a remote schema not
 * served, for a role that has one, and for a schema document Hasura would not resolve.
 */
export const addRemoteSchemaPermissions: Operation = (metadata, raw, _catalog, context) => {
  const { schema, role, args } = permissionArgs(raw);
  const definitionPath = at(ARGS, "definition");
  const definition = asObject(requireKey(args, "definition", ARGS), definitionPath);
  const sdl = requireString(definition, "schema", definitionPath);
  try {
    parse(sdl, { noLocation: true });
  } catch (error) {
    throw parseFailed((error as Error).message, at(definitionPath, "schema"));
  }
  const comment = optionalString(args, "comment", ARGS);
  const remotes = context?.remotes;
  if (remotes && !remotes.permissionsEnabled) throw remotePermissionsDisabled();
  if (remotes && !remotes.served(schema)) throw remoteSchemaOfPermissionNotFound(schema);
  const permissions = permissionsOf(metadata, schema);
  if (permissions.some((p) => p.role === role)) {
    throw remoteSchemaPermissionExists(role, schema);
  }
  const problem = remotes?.permissionError(schema, role, definition);
  if (problem) throw problem;
  // Hasura puts the new permission first.
  const permission = { role, definition, ...(comment !== undefined ? { comment } : {}) };
  return success(replaceRemoteSchema(metadata, schema, (r) => ({ ...r, permissions: [permission, ...permissions] })));
};

export const dropRemoteSchemaPermissions: Operation = (metadata, raw, _catalog, context) => {
  const { schema, role } = permissionArgs(raw);
  if (context?.remotes && !context.remotes.served(schema)) throw remoteSchemaOfPermissionNotFound(schema);
  const permissions = permissionsOf(metadata, schema);
  if (!permissions.some((p) => p.role === role)) {
    throw remoteSchemaPermissionNotFound(role, schema);
  }
  return success(
    replaceRemoteSchema(metadata, schema, (r) =>
      setOrDrop(
        r,
        "permissions",
        permissions.filter((p) => p.role !== role),
      ),
    ),
  );
};

const LEGACY_KEYS = ["remote_schema", "hasura_fields", "remote_field"] as const;

/**
 * `{source?, table, name, definition}`, or the legacy form with `remote_schema`,
 * `hasura_fields` and `remote_field` inline, which metadata keeps under `definition`.
 */
function remoteRelationshipArgs(raw: unknown): { source: string; table: QualifiedTable; rel: Json } {
  const args = argsObject(raw, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "name", ARGS);
  const legacy = args.remote_schema !== undefined && args.remote_schema !== null;
  const current = args.definition !== undefined && args.definition !== null;
  if (legacy === current) throw parseFailed("create_remote_relationship expects exactly one of: remote_schema, definition", ARGS);
  if (current) return { source, table, rel: { name, definition: asObject(args.definition, at(ARGS, "definition")) } };
  const definition: Json = {};
  for (const key of LEGACY_KEYS) definition[key] = requireKey(args, key, ARGS);
  return { source, table, rel: { name, definition } };
}

/** The table's remote relationship, or Hasura's error for a field that is missing or is something else. */
function requireRemoteRelationship(table: TableMetadata, name: string, fields: Set<string>): void {
  if (tableList(table, "remote_relationships").some((r) => r.name === name)) return;
  if (fields.has(name)) throw notARemoteRelationship();
  throw remoteRelationshipNotFound(name);
}

function setRemoteRelationships(table: TableMetadata, rels: Json[]): TableMetadata {
  return setOrDrop(table, "remote_relationships", rels);
}

/**
 * Hasura's buildSchemaCacheFor: a relationship to a remote schema that does not resolve
 * (remote/relationships.ts) refuses the command with its reason (`invalid-configuration`).
 */
function refuseInconsistent(remotes: RemoteSchemaAccess | undefined, next: Metadata, source: string, table: QualifiedTable, name: unknown) {
  if (!remotes) return;
  const objectName = remoteRelationshipObjectName(name, table, source);
  const own = remotes.inconsistencies(next).filter((o) => o.name === objectName);
  if (own.length > 0)
    throw objectInconsistent(
      own.map((o) => o.reason),
      own,
    );
}

/** Adds the relationship, or replaces one of the same name as Hasura's metadata map does. */
export const createRemoteRelationship: Operation = (metadata, raw, _catalog, context) => {
  const { source, table, rel } = remoteRelationshipArgs(raw);
  requireTable(metadata, source, table);
  const next = withTable(metadata, source, table, (t) => {
    const rels = tableList(t, "remote_relationships");
    const exists = rels.some((r) => r.name === rel.name);
    return setRemoteRelationships(t, exists ? rels.map((r) => (r.name === rel.name ? rel : r)) : [...rels, rel]);
  });
  refuseInconsistent(context?.remotes, next, source, table, rel.name);
  return success(next);
};

export const updateRemoteRelationship: Operation = (metadata, raw, catalog, context) => {
  const { source, table, rel } = remoteRelationshipArgs(raw);
  const tracked = requireTable(metadata, source, table);
  requireRemoteRelationship(tracked, rel.name as string, fieldNames(tracked, catalog));
  const next = withTable(metadata, source, table, (t) =>
    setRemoteRelationships(
      t,
      tableList(t, "remote_relationships").map((r) => (r.name === rel.name ? rel : r)),
    ),
  );
  refuseInconsistent(context?.remotes, next, source, table, rel.name);
  return success(next);
};

export const deleteRemoteRelationship: Operation = (metadata, raw, catalog) => {
  const args = argsObject(raw, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "name", ARGS);
  const tracked = requireTable(metadata, source, table);
  requireRemoteRelationship(tracked, name, fieldNames(tracked, catalog));
  return success(
    withTable(metadata, source, table, (t) =>
      setRemoteRelationships(
        t,
        tableList(t, "remote_relationships").filter((r) => r.name !== name),
      ),
    ),
  );
};

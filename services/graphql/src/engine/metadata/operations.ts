/**
 * The metadata API operations as pure functions: (metadata, args, catalog) -> new metadata and
 * the response body, or a HasuraError with Hasura's code, message, status and path. Source
 * operations answer to their `pg_` name (/v1/metadata) and to the bare legacy name (/v1/query).
 * Running them in order, saving and bulk are the API layer's job (api.ts).
 */
import { inconsistentMetadata } from "../errors/index.js";
import type { RemoteSchemaAccess } from "../remote/registry.js";
import { remoteRelationshipObjectName } from "../remote/relationships.js";
import { removeApiLimits, setApiLimits } from "./api-limits.js";
import { asObject, isObject, type Json, optionalBoolean, parseFailed } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { dropInconsistent, findInconsistencies } from "./consistency.js";
import { ARGS, type Operation, type OperationContext, type OperationResult, setOrDrop, success } from "./edit.js";
import { createFunctionPermission, dropFunctionPermission, setFunctionCustomization } from "./function-ops.js";
import { setIntrospectionOptions } from "./introspection-options.js";
import { normalizeMetadata } from "./normalize.js";
import { permissionOperations, setPermissionComment } from "./permissions.js";
import {
  createArrayRelationship,
  createObjectRelationship,
  dropRelationship,
  renameRelationship,
  setRelationshipComment,
} from "./relationships.js";
import { REMOTE_SCHEMA_OPERATIONS } from "./remote-schemas.js";
import {
  addComputedField,
  dropComputedField,
  setTableCustomFields,
  setTableCustomization,
  setTableIsEnum,
  trackFunction,
  trackTable,
  untrackFunction,
  untrackTable,
} from "./tables.js";
import { trackTables, untrackTables } from "./track-tables.js";
import { DEFAULT_SOURCE, type Metadata } from "./types.js";
import { dropUnserved, tableList, topList, unservedInconsistencies, withTopList } from "./unserved.js";
import { UNSERVED_GLOBAL_OPERATIONS, UNSERVED_SOURCE_OPERATIONS } from "./unserved-operations.js";

export type { Operation, OperationResult } from "./edit.js";

export interface OperationSpec {
  run: Operation;
  /** Whether a successful run changes stored metadata (and so bumps resource_version). */
  modifies: boolean;
  /** What must be fetched before `run` (remote schemas' schemas); may refuse the command as Hasura does. */
  prepare?: (metadata: Metadata, args: unknown, remotes: RemoteSchemaAccess) => Promise<void>;
}

/**
 * Metadata as export_metadata sends it: without the keys that are ours, not Hasura's, and
 * without the cron triggers created with `include_in_metadata: false`.
 */
export function exportMetadata(metadata: Metadata): Metadata {
  const { actions_graphql: _sdl, ...rest } = metadata;
  if (rest.cron_triggers === undefined) return rest as Metadata;
  return withTopList(
    rest as Metadata,
    "cron_triggers",
    topList(metadata, "cron_triggers").filter((t) => t.include_in_metadata !== false),
  );
}

function consistencyReport(
  metadata: Metadata,
  catalog: CatalogView,
  context?: OperationContext,
): { is_consistent: boolean; inconsistent_objects?: unknown[] } {
  const objects = [
    ...findInconsistencies(metadata, catalog),
    ...(context?.remotes?.inconsistencies(metadata) ?? []),
    ...unservedInconsistencies(metadata, catalog),
  ];
  return objects.length === 0 ? { is_consistent: true } : { is_consistent: false, inconsistent_objects: objects };
}

/** `{metadata, allow_inconsistent_metadata}` or the metadata itself (v1 and v2 request forms). */
function replacement(current: Metadata, args: unknown): { metadata: Metadata; wrapped: boolean; allowInconsistent: boolean } {
  const rawArgs = asObject(args, ARGS);
  const wrapped = rawArgs.metadata !== undefined && rawArgs.sources === undefined && rawArgs.tables === undefined;
  const allowInconsistent = wrapped ? (optionalBoolean(rawArgs, "allow_inconsistent_metadata", ARGS) ?? false) : false;
  const metadata = normalizeMetadata(wrapped ? rawArgs.metadata : rawArgs, wrapped ? `${ARGS}.metadata` : ARGS);
  // The actions SDL is not part of Hasura's format; keep ours unless the new metadata has one.
  if (metadata.actions_graphql === undefined && current.actions_graphql !== undefined && metadata.actions !== undefined) {
    metadata.actions_graphql = current.actions_graphql;
  }
  // Cron triggers kept out of export_metadata (`include_in_metadata: false`) stay, unless replaced by name (Hasura's runReplaceMetadataV2).
  const named = new Set(topList(metadata, "cron_triggers").map((t) => t.name));
  const kept = topList(current, "cron_triggers").filter((t) => t.include_in_metadata === false && !named.has(t.name));
  return {
    metadata: kept.length > 0 ? withTopList(metadata, "cron_triggers", [...topList(metadata, "cron_triggers"), ...kept]) : metadata,
    wrapped,
    allowInconsistent,
  };
}

/** Remote schemas that cannot be fetched, or conflict, are inconsistent objects as Hasura reports them. */
const replaceMetadata: Operation = (current, args, catalog, context) => {
  const { metadata, wrapped, allowInconsistent } = replacement(current, args);
  const inconsistent = [...findInconsistencies(metadata, catalog), ...(context?.remotes?.inconsistencies(metadata) ?? [])];
  // What the engine does not serve yet (unserved.ts) is reported but never refuses the metadata.
  const reported = [...inconsistent, ...unservedInconsistencies(metadata, catalog)];
  if (reported.length === 0 || (inconsistent.length === 0 && !wrapped)) return success(metadata);
  if (inconsistent.length > 0 && !allowInconsistent) {
    throw inconsistentMetadata(inconsistent);
  }
  return { metadata, result: { is_consistent: false, inconsistent_objects: reported } };
};

/** Empty metadata that keeps the default source's connection settings, as Hasura does. */
const clearMetadata: Operation = (current) => {
  const cleared = normalizeMetadata({ version: 3, sources: [] });
  const previous = current.sources.find((s) => s.name === DEFAULT_SOURCE);
  cleared.sources = [{ name: DEFAULT_SOURCE, kind: "postgres", tables: [], configuration: previous?.configuration ?? {} }];
  return success(cleared);
};

const reloadMetadata: Operation = (metadata, _args, catalog, context) => ({
  metadata,
  result: { message: "success", ...consistencyReport(metadata, catalog, context) },
});

/** `reload_remote_schemas`: true (Hasura's default) fetches every remote schema again, a list those named, false none. */
async function prepareReload(metadata: Metadata, args: unknown, remotes: RemoteSchemaAccess): Promise<void> {
  const spec = isObject(args) ? (args.reload_remote_schemas ?? true) : true;
  const named = Array.isArray(spec) ? new Set(spec.map(String)) : null;
  await remotes.load(metadata, (name) => (named ? named.has(name) : spec === true));
}

/** The remote schemas of the metadata a command reads, fetched if they were not. */
const loadRemotes = async (metadata: Metadata, _args: unknown, remotes: RemoteSchemaAccess) => remotes.load(metadata);

function withoutBrokenPermissions(remote: Json, broken: Set<string>): Json {
  const permissions = Array.isArray(remote.permissions) ? remote.permissions.filter(isObject) : undefined;
  if (!permissions) return remote;
  const name = `permission in remote schema ${String(remote.name)}`;
  const left = permissions.filter((p) => !broken.has(`remote_schema_permission ${String(p.role)} ${name}`));
  return left.length === permissions.length ? remote : setOrDrop(remote, "permissions", left);
}

/** drop_inconsistent_metadata also drops the remote schemas reported inconsistent, as Hasura drops what it reports. */
const dropInconsistentMetadata: Operation = (metadata, _args, catalog, context) => {
  const broken = new Set((context?.remotes?.inconsistencies(metadata) ?? []).map((o) => o.name));
  const remotes = Array.isArray(metadata.remote_schemas) ? metadata.remote_schemas : undefined;
  // A remote schema that stays loses the permissions reported inconsistent.
  const kept = remotes
    ?.filter((r) => !broken.has(`remote_schema ${String((r as { name?: unknown }).name)}`))
    .map((r) => withoutBrokenPermissions(r as Json, broken));
  const withoutRemotes = kept && remotes ? (setOrDrop(metadata as Json, "remote_schemas", kept) as Metadata) : metadata;
  // Tables' remote relationships that do not resolve go too (remote/relationships.ts names them).
  const sources = withoutRemotes.sources.map((source) => ({
    ...source,
    tables: source.tables.map((table) => {
      const rels = tableList(table, "remote_relationships");
      const left = rels.filter((r) => !broken.has(remoteRelationshipObjectName(r.name, table.table, source.name)));
      return left.length === rels.length ? table : setOrDrop(table, "remote_relationships", left);
    }),
  }));
  return success(dropUnserved(dropInconsistent({ ...withoutRemotes, sources }, catalog), catalog));
};

const SOURCE_OPERATIONS: Record<string, Operation> = {
  track_table: trackTable,
  untrack_table: untrackTable,
  track_tables: trackTables,
  untrack_tables: untrackTables,
  set_table_is_enum: setTableIsEnum,
  set_table_customization: setTableCustomization,
  set_table_custom_fields: setTableCustomFields,
  add_computed_field: addComputedField,
  drop_computed_field: dropComputedField,
  track_function: trackFunction,
  untrack_function: untrackFunction,
  set_function_customization: setFunctionCustomization,
  create_function_permission: createFunctionPermission,
  drop_function_permission: dropFunctionPermission,
  create_object_relationship: createObjectRelationship,
  create_array_relationship: createArrayRelationship,
  drop_relationship: dropRelationship,
  rename_relationship: renameRelationship,
  set_relationship_comment: setRelationshipComment,
  set_permission_comment: setPermissionComment,
  ...permissionOperations,
  ...UNSERVED_SOURCE_OPERATIONS,
};

const GLOBAL_OPERATIONS: Record<string, OperationSpec> = {
  replace_metadata: {
    run: replaceMetadata,
    modifies: true,
    prepare: (current, args, remotes) => remotes.load(replacement(current, args).metadata),
  },
  clear_metadata: { run: clearMetadata, modifies: true },
  // Saved (resource_version bumps) so that every instance re-reads the database, as Hasura's reload does.
  reload_metadata: { run: reloadMetadata, modifies: true, prepare: prepareReload },
  export_metadata: { run: (metadata) => ({ metadata, result: exportMetadata(metadata) }), modifies: false },
  get_inconsistent_metadata: {
    run: (metadata, _args, catalog, context) => ({ metadata, result: consistencyReport(metadata, catalog, context) }),
    modifies: false,
    prepare: loadRemotes,
  },
  drop_inconsistent_metadata: { run: dropInconsistentMetadata, modifies: true, prepare: loadRemotes },
  ...UNSERVED_GLOBAL_OPERATIONS,
  ...REMOTE_SCHEMA_OPERATIONS,
  set_api_limits: { run: setApiLimits, modifies: true },
  set_graphql_schema_introspection_options: { run: setIntrospectionOptions, modifies: true },
  remove_api_limits: { run: removeApiLimits, modifies: true },
};

/** The operation a request `type` names, accepting `pg_track_table` and `track_table` alike. */
export function findOperation(type: string): OperationSpec | undefined {
  const global = GLOBAL_OPERATIONS[type];
  if (global) return global;
  const name = type.startsWith("pg_") ? type.slice(3) : type;
  const run = SOURCE_OPERATIONS[name];
  return run ? { run, modifies: true } : undefined;
}

/** Applies one operation; throws `parse-failed` for an unknown type. */
export function applyMetadataOperation(
  metadata: Metadata,
  type: string,
  args: unknown,
  catalog: CatalogView,
  context?: OperationContext,
): OperationResult {
  const operation = findOperation(type);
  if (!operation) throw parseFailed(`unknown metadata command "${type}"`, "$");
  return operation.run(metadata, args, catalog, context);
}

/**
 * The metadata API operations as pure functions: (metadata, args, catalog) -> new metadata and
 * the response body, or a HasuraError with Hasura's code, message, status and path. Source
 * operations answer to their `pg_` name (/v1/metadata) and to the bare legacy name (/v1/query).
 * Running them in order, saving and bulk are the API layer's job (api.ts).
 */
import { inconsistentMetadata } from "../errors.js";
import { removeApiLimits, setApiLimits } from "./api-limits.js";
import { asObject, optionalBoolean, parseFailed } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { dropInconsistent, findInconsistencies } from "./consistency.js";
import { ARGS, type Operation, type OperationResult, success } from "./edit.js";
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
import { DEFAULT_SOURCE, type Metadata } from "./types.js";
import { dropUnserved, unservedInconsistencies } from "./unserved.js";
import { UNSERVED_GLOBAL_OPERATIONS, UNSERVED_SOURCE_OPERATIONS } from "./unserved-operations.js";

export type { Operation, OperationResult } from "./edit.js";

export interface OperationSpec {
  run: Operation;
  /** Whether a successful run changes stored metadata (and so bumps resource_version). */
  modifies: boolean;
}

/** Metadata as export_metadata sends it: without the keys that are ours, not Hasura's. */
export function exportMetadata(metadata: Metadata): Metadata {
  const { actions_graphql: _sdl, ...rest } = metadata;
  return rest as Metadata;
}

function consistencyReport(metadata: Metadata, catalog: CatalogView): { is_consistent: boolean; inconsistent_objects?: unknown[] } {
  const objects = [...findInconsistencies(metadata, catalog), ...unservedInconsistencies(metadata, catalog)];
  return objects.length === 0 ? { is_consistent: true } : { is_consistent: false, inconsistent_objects: objects };
}

/** `{metadata, allow_inconsistent_metadata}` or the metadata itself (v1 and v2 request forms). */
const replaceMetadata: Operation = (current, args, catalog) => {
  const rawArgs = asObject(args, ARGS);
  const wrapped = rawArgs.metadata !== undefined && rawArgs.sources === undefined && rawArgs.tables === undefined;
  const allowInconsistent = wrapped ? (optionalBoolean(rawArgs, "allow_inconsistent_metadata", ARGS) ?? false) : false;
  const metadata = normalizeMetadata(wrapped ? rawArgs.metadata : rawArgs, wrapped ? `${ARGS}.metadata` : ARGS);
  // The actions SDL is not part of Hasura's format; keep ours unless the new metadata has one.
  if (metadata.actions_graphql === undefined && current.actions_graphql !== undefined && metadata.actions !== undefined) {
    metadata.actions_graphql = current.actions_graphql;
  }
  const inconsistent = findInconsistencies(metadata, catalog);
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

const reloadMetadata: Operation = (metadata, _args, catalog) => ({
  metadata,
  result: { message: "success", ...consistencyReport(metadata, catalog) },
});

const SOURCE_OPERATIONS: Record<string, Operation> = {
  track_table: trackTable,
  untrack_table: untrackTable,
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
  replace_metadata: { run: replaceMetadata, modifies: true },
  clear_metadata: { run: clearMetadata, modifies: true },
  // Saved (resource_version bumps) so that every instance re-reads the database, as Hasura's reload does.
  reload_metadata: { run: reloadMetadata, modifies: true },
  export_metadata: { run: (metadata) => ({ metadata, result: exportMetadata(metadata) }), modifies: false },
  get_inconsistent_metadata: {
    run: (metadata, _args, catalog) => ({ metadata, result: consistencyReport(metadata, catalog) }),
    modifies: false,
  },
  drop_inconsistent_metadata: {
    run: (metadata, _args, catalog) => success(dropUnserved(dropInconsistent(metadata, catalog), catalog)),
    modifies: true,
  },
  ...UNSERVED_GLOBAL_OPERATIONS,
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
export function applyMetadataOperation(metadata: Metadata, type: string, args: unknown, catalog: CatalogView): OperationResult {
  const operation = findOperation(type);
  if (!operation) throw parseFailed(`unknown metadata command "${type}"`, "$");
  return operation.run(metadata, args, catalog);
}

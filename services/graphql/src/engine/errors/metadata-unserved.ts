/**
 * Errors of the metadata commands for objects the engine keeps but does not serve: remote
 * schemas and remote relationships, query collections, the allow list, REST endpoints,
 * inherited roles, actions, event and cron triggers. All at `$.args` unless said, status 400.
 */
import { HasuraError } from "./hasura-error.js";

const ARGS = "$.args";

// --- Remote schemas (server/src-lib/Hasura/RemoteSchema/MetadataAPI/Core.hs and Permission.hs) and
// remote relationships (server/src-lib/Hasura/RQL/DDL/RemoteRelationship.hs). Each command words a
// missing remote schema its own way.

export function remoteSchemaUrlMissing(): HasuraError {
  return new HasuraError("invalid-params", "both `url` and `url_from_env` can't be empty", ARGS);
}

export function remoteSchemaUrlTwice(): HasuraError {
  return new HasuraError("invalid-params", "both `url` and `url_from_env` can't be present", ARGS);
}

export function remoteSchemaExists(name: string): HasuraError {
  return new HasuraError("already-exists", `remote schema with name "${name}" already exists`, ARGS);
}

/** update_remote_schema's wording. */
export function remoteSchemaToUpdateNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `remote schema with name "${name}" doesn't exist`, ARGS);
}

/** remove_remote_schema's wording. */
export function noSuchRemoteSchema(): HasuraError {
  return new HasuraError("not-exists", "no such remote schema", ARGS);
}

/** reload_remote_schema's wording. */
export function remoteSchemaToReloadNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `remote schema with name "${name}" does not exist`, ARGS);
}

/** introspect_remote_schema's wording (runIntrospectRemoteSchema). */
export function remoteSchemaNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `remote schema: "${name}" not found`, ARGS);
}

/** The remote schema permission commands' wording. */
export function remoteSchemaOfPermissionNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `remote schema "${name}" doesn't exist`, ARGS);
}

export function remoteSchemaPermissionExists(role: string, schema: string): HasuraError {
  return new HasuraError("already-exists", `permissions for role: "${role}" for remote schema:"${schema}" already exists`, ARGS);
}

export function remoteSchemaPermissionNotFound(role: string, schema: string): HasuraError {
  return new HasuraError("not-exists", `permissions for role: "${role}" for remote schema:"${schema}" doesn't exist`, ARGS);
}

/** A remote relationship command naming a field of the table that is not a remote relationship. */
export function notARemoteRelationship(): HasuraError {
  return new HasuraError("unexpected-payload", "expecting a remote relationship", ARGS);
}

export function remoteRelationshipNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `"${name}" does not exist`, ARGS);
}

// --- Query collections and the allow list (server/src-lib/Hasura/RQL/DDL/QueryCollection.hs), REST
// endpoints (Endpoint.hs), inherited roles (InheritedRoles.hs).

export function queryCollectionNotFound(name: string, path = ARGS): HasuraError {
  return new HasuraError("not-exists", `query collection with name "${name}" does not exist`, path);
}

export function queryCollectionExists(name: string): HasuraError {
  return new HasuraError("already-exists", `query collection with name "${name}" already exists`, `${ARGS}.name`);
}

/** `path` is the collection's `definition.queries`. */
export function duplicateQueryNames(names: readonly string[], path: string): HasuraError {
  return new HasuraError("not-supported", `found duplicate query names ${names.map((d) => `"${d}"`).join(", ")}`, path);
}

/** drop_query_collection without cascade of a collection in the allow list. */
export function queryCollectionInAllowlist(name: string): HasuraError {
  return new HasuraError(
    "dependency-error",
    `query collection with name "${name}" is present in the allowlist; cannot proceed to drop. please use cascade to confirm you wish to drop it from the allowlist as well`,
    `${ARGS}.collection`,
  );
}

export function queryExistsInCollection(query: string, collection: string): HasuraError {
  return new HasuraError("already-exists", `query with name "${query}" already exists in collection "${collection}"`, ARGS);
}

export function queryNotInCollection(query: string, collection: string): HasuraError {
  return new HasuraError("not-found", `query with name "${query}" not found in collection "${collection}"`, ARGS);
}

export function collectionNotInAllowlist(name: string): HasuraError {
  return new HasuraError("not-found", `collection "${name}" doesn't exist in the allowlist`, ARGS);
}

export function endpointExists(name: string): HasuraError {
  return new HasuraError("already-exists", `Endpoint with name: ${name} already exists`, ARGS);
}

export function endpointNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `endpoint with name: ${name} does not exist`, ARGS);
}

export function inheritedRoleInOwnSet(): HasuraError {
  return new HasuraError("invalid-params", "an inherited role name cannot be in the role combination", ARGS);
}

export function inheritedRoleNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `"${name}" inherited role doesn't exist`, ARGS);
}

// --- Actions (server/src-lib/Hasura/RQL/DDL/Action.hs).

export function actionNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `action with name "${name}" does not exist`, ARGS);
}

export function actionExists(name: string): HasuraError {
  return new HasuraError("already-exists", `action with name "${name}" already exists`, ARGS);
}

export function actionPermissionExists(role: string, action: string): HasuraError {
  return new HasuraError("already-exists", `permission for role "${role}" is already defined on "${action}"`, ARGS);
}

export function actionPermissionNotFound(role: string, action: string): HasuraError {
  return new HasuraError("not-exists", `permission for role: "${role}" is not defined on "${action}"`, ARGS);
}

// --- Event triggers (server/src-lib/Hasura/RQL/DDL/EventTrigger.hs) and cron triggers (ScheduledTrigger.hs).

/** A column in an event trigger's operation spec that the table does not have. */
export function triggerColumnNotFound(column: string): HasuraError {
  return new HasuraError("not-exists", `column "${column}" does not exist`, ARGS);
}

export function eventTriggerNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `event trigger "${name}" does not exist`, ARGS);
}

export function eventTriggerExists(name: string): HasuraError {
  return new HasuraError("already-exists", `Event trigger with name "${name}" already exists`, ARGS);
}

/** create_event_trigger with `replace` on another table. */
export function triggerTableChanged(): HasuraError {
  return new HasuraError("not-supported", "cannot replace table or schema for trigger", ARGS);
}

/** pg_invoke_event_trigger on a trigger without `enable_manual`. */
export function manualModeNotEnabled(): HasuraError {
  return new HasuraError("not-supported", "manual mode is not enabled for event trigger", ARGS);
}

export function eventNotFound(): HasuraError {
  return new HasuraError("not-exists", "event not found", ARGS);
}

/** pg_redeliver_event on an event an instance holds now. */
export function eventBusy(): HasuraError {
  return new HasuraError("busy", "event is already being processed", ARGS);
}

export function cronTriggerNotFound(name: string): HasuraError {
  return new HasuraError("not-exists", `cron trigger with name: ${name} does not exist`, ARGS);
}

export function cronTriggerExists(name: string): HasuraError {
  return new HasuraError("already-exists", `cron trigger with name: ${name} already exists`, ARGS);
}

/** delete_scheduled_event for an id the table does not have. */
export function scheduledEventNotFound(id: string): HasuraError {
  return new HasuraError("not-exists", `scheduled event with id: ${id} does not exist`, ARGS);
}

/**
 * The metadata commands for objects the engine keeps but does not serve (unserved.ts), by
 * Hasura's command name. Source commands answer to their `pg_` name and the legacy bare one.
 */
import { pauseEventTriggerCleanups, resumeEventTriggerCleanups } from "./cleanup-commands.js";
import type { Operation } from "./edit.js";
import { testWebhookTransform } from "./test-webhook-transform.js";
import { createCronTrigger, createEventTrigger, deleteCronTrigger, deleteEventTrigger, getCronTriggers } from "./trigger-commands.js";
import {
  createAction,
  createActionPermission,
  dropAction,
  dropActionPermission,
  setCustomTypes,
  updateAction,
} from "./unserved-actions.js";
import {
  addCollectionToAllowlist,
  addInheritedRole,
  addQueryToCollection,
  createQueryCollection,
  createRestEndpoint,
  dropCollectionFromAllowlist,
  dropInheritedRole,
  dropQueryCollection,
  dropQueryFromCollection,
  dropRestEndpoint,
} from "./unserved-collections.js";
import {
  addRemoteSchemaPermissions,
  createRemoteRelationship,
  deleteRemoteRelationship,
  dropRemoteSchemaPermissions,
  updateRemoteRelationship,
} from "./unserved-remote.js";

const change = (run: Operation) => ({ run, modifies: true });

export const UNSERVED_GLOBAL_OPERATIONS: Record<string, { run: Operation; modifies: boolean }> = {
  create_action: change(createAction),
  update_action: change(updateAction),
  drop_action: change(dropAction),
  create_action_permission: change(createActionPermission),
  drop_action_permission: change(dropActionPermission),
  set_custom_types: change(setCustomTypes),
  add_remote_schema_permissions: change(addRemoteSchemaPermissions),
  drop_remote_schema_permissions: change(dropRemoteSchemaPermissions),
  create_cron_trigger: change(createCronTrigger),
  delete_cron_trigger: change(deleteCronTrigger),
  get_cron_triggers: { run: getCronTriggers, modifies: false },
  test_webhook_transform: { run: testWebhookTransform, modifies: false },
  pause_event_trigger_cleanups: change(pauseEventTriggerCleanups),
  resume_event_trigger_cleanups: change(resumeEventTriggerCleanups),
  create_query_collection: change(createQueryCollection),
  drop_query_collection: change(dropQueryCollection),
  add_query_to_collection: change(addQueryToCollection),
  drop_query_from_collection: change(dropQueryFromCollection),
  add_collection_to_allowlist: change(addCollectionToAllowlist),
  drop_collection_from_allowlist: change(dropCollectionFromAllowlist),
  create_rest_endpoint: change(createRestEndpoint),
  drop_rest_endpoint: change(dropRestEndpoint),
  add_inherited_role: change(addInheritedRole),
  drop_inherited_role: change(dropInheritedRole),
};

export const UNSERVED_SOURCE_OPERATIONS: Record<string, Operation> = {
  create_remote_relationship: createRemoteRelationship,
  update_remote_relationship: updateRemoteRelationship,
  delete_remote_relationship: deleteRemoteRelationship,
  create_event_trigger: createEventTrigger,
  delete_event_trigger: deleteEventTrigger,
};

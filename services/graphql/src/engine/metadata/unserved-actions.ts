/**
 * The action commands (create_action, update_action, drop_action, create_action_permission,
 * drop_action_permission, set_custom_types) with Hasura's argument shapes and errors
 * (server/src-lib/Hasura/RQL/DDL/Action.hs, ActionDefinition's parser in
 * server/src-lib/Hasura/RQL/Types/Action.hs). The engine does not serve actions yet: the
 * commands only edit the stored metadata, and unserved.ts reports what they store.
 */
import { actionExists, actionNotFound, actionPermissionExists, actionPermissionNotFound, inconsistentObject } from "../errors/index.js";
import { argsObject, asArray, asObject, at, isObject, type Json, optionalString, parseFailed, requireKey, requireString } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { actionTypeProblem, customTypeProblems, customTypesReason, reportedAction, reportedCustomTypes } from "./custom-types.js";
import { ARGS, type Operation, setOrDrop, success } from "./edit.js";
import { checkHeaders } from "./headers.js";
import { checkTransforms } from "./transform-checks.js";
import type { Metadata } from "./types.js";
import { topList, withTopList } from "./unserved.js";

/** An action definition as Hasura parses it: `output_type` and `handler` are required. */
function actionDefinition(value: unknown, path: string): Json {
  const definition = asObject(value, path);
  requireString(definition, "output_type", path);
  requireString(definition, "handler", path);
  if (definition.arguments !== undefined && definition.arguments !== null) {
    const argsPath = at(path, "arguments");
    asArray(definition.arguments, argsPath).forEach((arg, i) => {
      const argument = asObject(arg, at(argsPath, i));
      requireString(argument, "name", at(argsPath, i));
      requireString(argument, "type", at(argsPath, i));
    });
  }
  checkHeaders(definition, path);
  checkTransforms(definition, path);
  const type = optionalString(definition, "type", path);
  if (type !== undefined && type !== "mutation" && type !== "query")
    throw parseFailed(`expected mutation or query, but found ${type}`, path);
  return definition;
}

/** `{name, definition, comment?}`, the stored form of create_action / update_action arguments. */
function actionArgs(raw: unknown): { name: string; definition: Json; comment?: string } {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  const definition = actionDefinition(requireKey(args, "definition", ARGS), at(ARGS, "definition"));
  const comment = optionalString(args, "comment", ARGS);
  return { name, definition, ...(comment !== undefined ? { comment } : {}) };
}

function requireAction(metadata: Metadata, name: string): Json {
  const action = topList(metadata, "actions").find((a) => a.name === name);
  if (!action) throw actionNotFound(name);
  return action;
}

function replaceAction(metadata: Metadata, name: string, update: (action: Json) => Json): Metadata {
  return withTopList(
    metadata,
    "actions",
    topList(metadata, "actions").map((a) => (a.name === name ? update(a) : a)),
  );
}

/** Refuses an action whose types do not resolve, as Hasura's rebuild does for the object a command adds. */
function checkActionTypes(metadata: Metadata, action: Json, catalog: CatalogView): void {
  const problem = actionTypeProblem(action.definition as Json, metadata.custom_types, catalog, String(action.name));
  if (problem === null) return;
  throw inconsistentObject(problem, [
    {
      definition: reportedAction(action),
      name: `action ${String(action.name)}`,
      reason: `Inconsistent object: ${problem}`,
      type: "action",
    },
  ]);
}

export const createAction: Operation = (metadata, raw, catalog) => {
  const action = actionArgs(raw);
  if (topList(metadata, "actions").some((a) => a.name === action.name)) {
    throw actionExists(String(action.name));
  }
  checkActionTypes(metadata, action, catalog);
  return success(withTopList(metadata, "actions", [...topList(metadata, "actions"), action]));
};

/** Replaces the definition and the comment (dropped when not given), keeping the permissions. */
export const updateAction: Operation = (metadata, raw, catalog) => {
  const action = actionArgs(raw);
  const { name, definition, comment } = action;
  requireAction(metadata, name);
  checkActionTypes(metadata, action, catalog);
  return success(replaceAction(metadata, name, (a) => setOrDrop<Json, string>({ ...a, definition }, "comment", comment)));
};

export const dropAction: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  requireAction(metadata, name);
  return success(
    withTopList(
      metadata,
      "actions",
      topList(metadata, "actions").filter((a) => a.name !== name),
    ),
  );
};

function permissionsOf(action: Json): Json[] {
  return Array.isArray(action.permissions) ? action.permissions.filter(isObject) : [];
}

export const createActionPermission: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "action", ARGS);
  const role = requireString(args, "role", ARGS);
  const comment = optionalString(args, "comment", ARGS);
  const permissions = permissionsOf(requireAction(metadata, name));
  if (permissions.some((p) => p.role === role)) {
    throw actionPermissionExists(role, name);
  }
  // Hasura puts the new permission first.
  const permission = { role, ...(comment !== undefined ? { comment } : {}) };
  return success(replaceAction(metadata, name, (a) => ({ ...a, permissions: [permission, ...permissions] })));
};

export const dropActionPermission: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "action", ARGS);
  const role = requireString(args, "role", ARGS);
  const permissions = permissionsOf(requireAction(metadata, name));
  if (!permissions.some((p) => p.role === role)) {
    throw actionPermissionNotFound(role, name);
  }
  return success(
    replaceAction(metadata, name, (a) =>
      setOrDrop(
        a,
        "permissions",
        permissions.filter((p) => p.role !== role),
      ),
    ),
  );
};

const CUSTOM_TYPE_KINDS = ["scalars", "enums", "input_objects", "objects"] as const;

/**
 * Replaces all custom types; the arguments are the custom types themselves. Types Hasura would
 * find invalid are refused with its reason (invalid-configuration, the object in `internal`).
 */
export const setCustomTypes: Operation = (metadata, raw, catalog) => {
  const args = argsObject(raw, ARGS);
  const types: Json = {};
  for (const kind of CUSTOM_TYPE_KINDS) {
    if (args[kind] === undefined || args[kind] === null) continue;
    const path = at(ARGS, kind);
    const list = asArray(args[kind], path);
    for (const [i, entry] of list.entries()) requireString(asObject(entry, at(path, i)), "name", at(path, i));
    if (list.length > 0) types[kind] = list;
  }
  const problems = customTypeProblems(types, metadata, catalog);
  if (problems.length > 0) {
    const reason = customTypesReason(problems);
    throw inconsistentObject(reason, [
      {
        definition: reportedCustomTypes(types),
        reason: `Inconsistent object: ${reason}`,
        name: "custom_types custom_types",
        type: "custom_types",
      },
    ]);
  }
  return success(setOrDrop(metadata, "custom_types", Object.keys(types).length > 0 ? types : undefined));
};

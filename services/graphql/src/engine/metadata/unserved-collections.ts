/**
 * Query collections, the allow list, REST endpoints and inherited roles, with Hasura's argument
 * shapes and errors (server/src-lib/Hasura/RQL/DDL/QueryCollection.hs, Endpoint.hs and
 * InheritedRoles.hs; the allow list entry in server/src-lib/Hasura/RQL/Types/Allowlist.hs).
 * None is served: the commands only edit the stored metadata; unserved.ts reports the REST
 * endpoints and inherited roles they store.
 */
import {
  collectionNotInAllowlist,
  duplicateQueryNames,
  endpointExists,
  endpointNotFound,
  inheritedRoleInOwnSet,
  inheritedRoleNotFound,
  queryCollectionExists,
  queryCollectionInAllowlist,
  queryCollectionNotFound,
  queryExistsInCollection,
  queryNotInCollection,
} from "../errors/index.js";
import {
  argsObject,
  asArray,
  asObject,
  asString,
  at,
  isObject,
  type Json,
  optionalBoolean,
  optionalString,
  requireKey,
  requireString,
} from "./args.js";
import { ARGS, type Operation, success } from "./edit.js";
import type { Metadata } from "./types.js";
import { topList, withTopList } from "./unserved.js";

function requireCollection(metadata: Metadata, name: string, path = ARGS): Json {
  const found = topList(metadata, "query_collections").find((c) => c.name === name);
  if (!found) throw queryCollectionNotFound(name, path);
  return found;
}

function queriesOf(collection: Json): Json[] {
  const definition = isObject(collection.definition) ? collection.definition : {};
  return Array.isArray(definition.queries) ? definition.queries.filter(isObject) : [];
}

function withQueries(metadata: Metadata, name: string, queries: Json[]): Metadata {
  return withTopList(
    metadata,
    "query_collections",
    topList(metadata, "query_collections").map((c) =>
      c.name === name ? { ...c, definition: { ...(isObject(c.definition) ? c.definition : {}), queries } } : c,
    ),
  );
}

const inAllowlist = (metadata: Metadata, name: string) => topList(metadata, "allowlist").some((e) => e.collection === name);

export const createQueryCollection: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  const definitionPath = at(ARGS, "definition");
  const definition = asObject(requireKey(args, "definition", ARGS), definitionPath);
  const queriesPath = at(definitionPath, "queries");
  const queries = asArray(requireKey(definition, "queries", definitionPath), queriesPath).map((q, i) => {
    const query = asObject(q, at(queriesPath, i));
    requireString(query, "name", at(queriesPath, i));
    requireString(query, "query", at(queriesPath, i));
    return query;
  });
  const comment = optionalString(args, "comment", ARGS);
  if (topList(metadata, "query_collections").some((c) => c.name === name)) {
    throw queryCollectionExists(name);
  }
  const names = queries.map((q) => q.name as string);
  const duplicates = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  if (duplicates.length > 0) {
    throw duplicateQueryNames(duplicates, queriesPath);
  }
  const collection = { name, definition, ...(comment !== undefined ? { comment } : {}) };
  return success(withTopList(metadata, "query_collections", [...topList(metadata, "query_collections"), collection]));
};

/** Refused while the allow list names the collection, unless `cascade` drops it from there too. */
export const dropQueryCollection: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "collection", ARGS);
  const cascade = optionalBoolean(args, "cascade", ARGS) ?? false;
  requireCollection(metadata, name, at(ARGS, "collection"));
  let next = metadata;
  if (inAllowlist(metadata, name)) {
    if (!cascade) {
      throw queryCollectionInAllowlist(name);
    }
    next = withTopList(
      next,
      "allowlist",
      topList(next, "allowlist").filter((e) => e.collection !== name),
    );
  }
  return success(
    withTopList(
      next,
      "query_collections",
      topList(next, "query_collections").filter((c) => c.name !== name),
    ),
  );
};

export const addQueryToCollection: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "collection_name", ARGS);
  const queryName = requireString(args, "query_name", ARGS);
  const query = requireString(args, "query", ARGS);
  const queries = queriesOf(requireCollection(metadata, name));
  if (queries.some((q) => q.name === queryName)) {
    throw queryExistsInCollection(queryName, name);
  }
  return success(withQueries(metadata, name, [...queries, { name: queryName, query }]));
};

export const dropQueryFromCollection: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "collection_name", ARGS);
  const queryName = requireString(args, "query_name", ARGS);
  const queries = queriesOf(requireCollection(metadata, name));
  if (!queries.some((q) => q.name === queryName)) {
    throw queryNotInCollection(queryName, name);
  }
  return success(
    withQueries(
      metadata,
      name,
      queries.filter((q) => q.name !== queryName),
    ),
  );
};

/** `{collection, scope?}`; a collection already there is left as it is, with Hasura's message. */
export const addCollectionToAllowlist: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "collection", ARGS);
  requireCollection(metadata, name, at(ARGS, "collection"));
  if (inAllowlist(metadata, name)) {
    return {
      metadata,
      result: {
        message: `collection "${name}" already exists in the allowlist, scope ignored; to change scope, use update_scope_of_collection_in_allowlist`,
      },
    };
  }
  const entry = { collection: name, ...(args.scope !== undefined && args.scope !== null ? { scope: args.scope } : {}) };
  return success(withTopList(metadata, "allowlist", [...topList(metadata, "allowlist"), entry]));
};

export const dropCollectionFromAllowlist: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "collection", ARGS);
  requireCollection(metadata, name, at(ARGS, "collection"));
  if (!inAllowlist(metadata, name)) throw collectionNotInAllowlist(name);
  return success(
    withTopList(
      metadata,
      "allowlist",
      topList(metadata, "allowlist").filter((e) => e.collection !== name),
    ),
  );
};

const ENDPOINT_KEYS = ["name", "url", "methods", "definition", "comment"] as const;

export const createRestEndpoint: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  requireString(args, "url", ARGS);
  asArray(requireKey(args, "methods", ARGS), at(ARGS, "methods"));
  asObject(requireKey(args, "definition", ARGS), at(ARGS, "definition"));
  const endpoints = topList(metadata, "rest_endpoints");
  if (endpoints.some((e) => e.name === name)) throw endpointExists(name);
  const endpoint: Json = {};
  for (const key of ENDPOINT_KEYS) if (args[key] !== undefined && args[key] !== null) endpoint[key] = args[key];
  return success(withTopList(metadata, "rest_endpoints", [...endpoints, endpoint]));
};

export const dropRestEndpoint: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "name", ARGS);
  const endpoints = topList(metadata, "rest_endpoints");
  if (!endpoints.some((e) => e.name === name)) throw endpointNotFound(name);
  return success(
    withTopList(
      metadata,
      "rest_endpoints",
      endpoints.filter((e) => e.name !== name),
    ),
  );
};

/** `{role_name, role_set}`; a role of that name is replaced, as in Hasura. */
export const addInheritedRole: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "role_name", ARGS);
  const setPath = at(ARGS, "role_set");
  const roleSet = asArray(requireKey(args, "role_set", ARGS), setPath);
  for (const [i, role] of roleSet.entries()) asString(role, at(setPath, i));
  if (roleSet.includes(name)) throw inheritedRoleInOwnSet();
  const role = { role_name: name, role_set: roleSet };
  const roles = topList(metadata, "inherited_roles");
  const exists = roles.some((r) => r.role_name === name);
  return success(withTopList(metadata, "inherited_roles", exists ? roles.map((r) => (r.role_name === name ? role : r)) : [...roles, role]));
};

export const dropInheritedRole: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "role_name", ARGS);
  const roles = topList(metadata, "inherited_roles");
  if (!roles.some((r) => r.role_name === name)) throw inheritedRoleNotFound(name);
  return success(
    withTopList(
      metadata,
      "inherited_roles",
      roles.filter((r) => r.role_name !== name),
    ),
  );
};

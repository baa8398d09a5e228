/**
 * The remote schema commands (server/src-lib/Hasura/RemoteSchema/MetadataAPI/Core.hs), with the
 * fetch Hasura makes before they change metadata: add_remote_schema fetches the remote's schema
 * and refuses with the fetch's error; update_remote_schema fetches again when the URL changed;
 * reload_remote_schema fetches again. Then, as Hasura's buildSchemaCacheFor and
 * withNewInconsistentObjsCheck do, a change that makes the remote schema (or anything else)
 * inconsistent is refused. The fetches run in `prepare` (async); the commands stay pure.
 */
import {
  dependencyError,
  type HasuraError,
  newInconsistentMetadata,
  newlyFoundInconsistentMetadata,
  noSuchRemoteSchema,
  objectInconsistent,
  remoteSchemaExists,
  remoteSchemaNotFound,
  remoteSchemaToReloadNotFound,
  remoteSchemaToUpdateNotFound,
  remoteSchemaUrlMissing,
  remoteSchemaUrlTwice,
  underPath,
} from "../errors/index.js";
import { storedDefinition } from "../remote/definition.js";
import type { RemoteOutcome, RemoteSchemaAccess } from "../remote/registry.js";
import { toRemoteSchema } from "../remote/relationships.js";
import { argsObject, asObject, at, type Json, optionalString, requireKey, requireString } from "./args.js";
import type { InconsistentObject } from "./consistency.js";
import { ARGS, describeObject, type Operation, setOrDrop, success } from "./edit.js";
import { checkHeaders } from "./headers.js";
import type { Metadata } from "./types.js";
import { tableList, topList, withTopList } from "./unserved.js";

/** `{name, definition, comment?}` with the url checks Hasura makes before anything else. */
function remoteSchemaArgs(raw: unknown): { name: string; definition: Json; comment?: string } {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  const definition = asObject(requireKey(args, "definition", ARGS), at(ARGS, "definition"));
  const comment = optionalString(args, "comment", ARGS);
  const url = definition.url ?? null;
  const fromEnv = definition.url_from_env ?? null;
  if (url === null && fromEnv === null) throw remoteSchemaUrlMissing();
  if (url !== null && fromEnv !== null) throw remoteSchemaUrlTwice();
  checkHeaders(definition, at(ARGS, "definition"));
  return { name, definition: storedDefinition(definition), ...(comment !== undefined ? { comment } : {}) };
}

export function findRemoteSchema(metadata: Metadata, name: string): Json | undefined {
  return topList(metadata, "remote_schemas").find((r) => r.name === name);
}

export function replaceRemoteSchema(metadata: Metadata, name: string, update: (schema: Json) => Json): Metadata {
  return withTopList(
    metadata,
    "remote_schemas",
    topList(metadata, "remote_schemas").map((r) => (r.name === name ? update(r) : r)),
  );
}

const isError = (outcome: RemoteOutcome): outcome is HasuraError => !("introspection" in outcome);

/** A fetch's error as the command answers it, at `$.args`. */
function refused(error: HasuraError): HasuraError {
  return error.path === "$" ? underPath(error, ARGS) : error;
}

/**
 * Hasura's buildSchemaCacheFor: objects inconsistent after the change that were not before it;
 * the changed remote schema's own reasons refuse it with `invalid-configuration`, others with
 * "cannot continue due to new inconsistent metadata".
 */
function refuseNewInconsistencies(remotes: RemoteSchemaAccess | undefined, before: Metadata, after: Metadata, name: string): void {
  if (!remotes) return;
  const known = new Set(remotes.inconsistencies(before).map((o) => o.name));
  const fresh = remotes.inconsistencies(after).filter((o) => !known.has(o.name));
  const own = fresh.filter((o) => o.name === `remote_schema ${name}`);
  if (own.length > 0)
    throw objectInconsistent(
      own.map((o) => o.reason),
      own,
    );
  if (fresh.length > 0) throw newInconsistentMetadata(fresh);
}

export const addRemoteSchema: Operation = (metadata, raw, _catalog, context) => {
  const schema = remoteSchemaArgs(raw);
  if (findRemoteSchema(metadata, schema.name)) throw remoteSchemaExists(String(schema.name));
  const next = withTopList(metadata, "remote_schemas", [...topList(metadata, "remote_schemas"), schema]);
  refuseNewInconsistencies(context?.remotes, metadata, next, schema.name);
  return success(next);
};

/** add_remote_schema's fetch: a remote that cannot be reached, or whose schema Hasura refuses, is not added. */
async function prepareAdd(metadata: Metadata, raw: unknown, remotes: RemoteSchemaAccess): Promise<void> {
  const schema = remoteSchemaArgs(raw);
  if (findRemoteSchema(metadata, schema.name)) return;
  const outcome = await remotes.fetch(schema, true);
  if (isError(outcome)) throw refused(outcome);
}

/** Hasura keeps the permissions and, as it rebuilds the entry, leaves out its remote relationships. */
export const updateRemoteSchema: Operation = (metadata, raw, _catalog, context) => {
  const { name, definition, comment } = remoteSchemaArgs(raw);
  const current = findRemoteSchema(metadata, name);
  if (!current) throw remoteSchemaToUpdateNotFound(name);
  const updated: Json = { name, definition, ...(comment !== undefined ? { comment } : {}) };
  const next = replaceRemoteSchema(metadata, name, () => setOrDrop(updated, "permissions", current.permissions as Json[] | undefined));
  refuseNewInconsistencies(context?.remotes, metadata, next, name);
  return success(next);
};

const sameUrl = (a: Json, b: Json) => (a.url != null && a.url === b.url) || (a.url_from_env != null && a.url_from_env === b.url_from_env);

/** update_remote_schema fetches the new URL's schema, and refuses one it cannot fetch (runUpdateRemoteSchema). */
async function prepareUpdate(metadata: Metadata, raw: unknown, remotes: RemoteSchemaAccess): Promise<void> {
  const schema = remoteSchemaArgs(raw);
  const current = findRemoteSchema(metadata, schema.name);
  if (!current) return;
  const urlChanged = !sameUrl(asObject(current.definition ?? {}, ARGS), schema.definition);
  const outcome = await remotes.fetch(schema, urlChanged);
  if (urlChanged && isError(outcome)) throw refused(outcome);
}

export const removeRemoteSchema: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "name", ARGS);
  if (!findRemoteSchema(metadata, name)) throw noSuchRemoteSchema();
  // Tables' remote relationships to it are dependent objects (removeRemoteSchemaP1 in
  // server/src-lib/Hasura/RQL/DDL/RemoteSchema.hs reports them).
  const dependents = metadata.sources.flatMap((source) =>
    source.tables.flatMap((table) =>
      tableList(table, "remote_relationships")
        .filter((rel) => String(toRemoteSchema(rel)?.remoteSchema) === name)
        .map((rel) => describeObject("remote relationship", table.table, String(rel.name), source.name)),
    ),
  );
  if (dependents.length > 0) throw dependencyError(dependents);
  return success(
    withTopList(
      metadata,
      "remote_schemas",
      topList(metadata, "remote_schemas").filter((r) => r.name !== name),
    ),
  );
};

/** Saved (resource_version bumps) so that the engine is rebuilt on the schema fetched again. */
export const reloadRemoteSchema: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "name", ARGS);
  if (!findRemoteSchema(metadata, name)) throw remoteSchemaToReloadNotFound(name);
  return success(metadata);
};

/** The remote's schema fetched again; a remote schema that becomes inconsistent refuses the reload (withNewInconsistentObjsCheck). */
async function prepareReload(metadata: Metadata, raw: unknown, remotes: RemoteSchemaAccess): Promise<void> {
  const entry = findRemoteSchema(metadata, requireString(argsObject(raw, ARGS), "name", ARGS));
  if (!entry) return;
  const known = new Set(remotes.inconsistencies(metadata).map((o: InconsistentObject) => o.name));
  await remotes.fetch(entry, true);
  const fresh = remotes.inconsistencies(metadata).filter((o) => !known.has(o.name));
  if (fresh.length > 0) throw newlyFoundInconsistentMetadata(fresh);
}

/** runIntrospectRemoteSchema: the served remote's introspection answer, as the remote gave it. */
const introspectRemoteSchema: Operation = (metadata, raw, _catalog, context) => {
  const name = requireString(argsObject(raw, ARGS), "name", ARGS);
  const remote = context?.remotes?.served(name);
  if (!remote) throw remoteSchemaNotFound(name);
  return { metadata, result: (remote.introspection.answer ?? null) as Json };
};

export interface RemoteSchemaOperation {
  run: Operation;
  modifies: boolean;
  prepare: (metadata: Metadata, args: unknown, remotes: RemoteSchemaAccess) => Promise<void>;
}

export const REMOTE_SCHEMA_OPERATIONS: Record<string, RemoteSchemaOperation> = {
  add_remote_schema: { run: addRemoteSchema, modifies: true, prepare: prepareAdd },
  update_remote_schema: { run: updateRemoteSchema, modifies: true, prepare: prepareUpdate },
  remove_remote_schema: { run: removeRemoteSchema, modifies: true, prepare: async () => {} },
  reload_remote_schema: { run: reloadRemoteSchema, modifies: true, prepare: prepareReload },
  introspect_remote_schema: { run: introspectRemoteSchema, modifies: false, prepare: async () => {} },
};

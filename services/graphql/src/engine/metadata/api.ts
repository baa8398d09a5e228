/**
 * The admin endpoints' dispatcher, framework-free: /v1/metadata, /v1/query (legacy names, as
 * Hasura's test fixtures send them) and /v2/query (run_sql). The HTTP layer passes the parsed
 * body and renders the result or the HasuraError.
 *
 * A request loads metadata once, applies its operations in order to a working copy, and saves
 * once at the end with the resource_version it started from (or the one the body names), so a
 * `bulk` is atomic for metadata: one failing step and none of its metadata changes are saved.
 * SQL already executed by earlier run_sql or insert steps stays, as with Hasura's /v1/query
 * bulk; after such a failure the stored metadata is only brought in line with the DDL (tables
 * the SQL dropped are untracked). Requests on one store run one at a time in this process;
 * across instances, resource_version decides, and a request without side effects is retried
 * when another instance saved in between.
 */

import { HasuraError, legacyArgsPath, resourceVersionConflict, runSqlDependencyError, underPath } from "../errors/index.js";
import { EVENT_DATA_COMMANDS } from "../eventing/api.js";
import type { RemoteSchemaAccess } from "../remote/registry.js";
import {
  argsObject,
  asArray,
  asObject,
  at,
  type Json,
  parseFailed,
  qualifiedTable,
  requireKey,
  requireString,
  sourceName,
} from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { droppedDependents, pruneAfterSchemaChange } from "./consistency.js";
import { LEGACY_DML } from "./dml.js";
import { ARGS, requireTable } from "./edit.js";
import { exportMetadata, findOperation } from "./operations.js";
import { followRenames } from "./renames.js";
import { isResourceVersionConflict, type MetadataStoreLike } from "./store.js";
import type { Metadata, QualifiedTable } from "./types.js";

export type MetadataEndpoint = "/v1/metadata" | "/v1/query" | "/v2/query";

/** run_sql arguments as Hasura documents them; passed through untouched. */
export interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  read_only?: boolean;
  check_metadata_consistency?: boolean;
  [other: string]: unknown;
}

export interface MetadataContext {
  store: MetadataStoreLike;
  /** The database as it is now; called again after run_sql, so it must not serve a stale view then. */
  catalog(): Promise<CatalogView>;
  /**
   * Runs the SQL in one transaction; `check`, when given, sees the schema as the SQL left it
   * before COMMIT and can refuse the change by throwing (the SQL is then rolled back).
   */
  runSql(args: RunSqlArgs, check?: (after: CatalogView) => void): Promise<unknown>;
  /** A legacy data operation (dml.ts: insert, update, delete, select, count) on a tracked table; its result is the step's response. */
  legacyDml(type: string, table: QualifiedTable, args: Json, path: string): Promise<unknown>;
  /** The remote schemas' fetched schemas; absent, remote schemas are kept but not fetched nor checked. */
  remoteSchemas?: RemoteSchemaAccess;
  /** Called after every save, with the saved metadata and its new resource_version. */
  onMetadataChanged(metadata: Metadata, resourceVersion: number): void | Promise<void>;
  /** Deletes the stored calls of dropped asynchronous actions (`drop_action` with `clear_data`, Hasura's default). */
  clearActionLogs?(actions: string[]): Promise<void>;
  /** Drops the event triggers' catalog (clear_metadata, as Hasura drops a source's). */
  clearEventCatalog?(): Promise<void>;
  /** The commands on events themselves (eventing/api.ts), with the metadata as the request left it. */
  eventData?(type: string, args: unknown, metadata: Metadata): Promise<unknown>;
}

interface RequestState {
  metadata: Metadata;
  resourceVersion: number;
  modified: boolean;
  catalog?: CatalogView;
  /** The catalog before the first statement that changed the schema. */
  catalogBeforeDdl?: CatalogView;
  /** SQL ran (run_sql or insert): the request cannot simply be retried. */
  sideEffects: boolean;
  /** Actions dropped with `clear_data`: their stored calls go once the metadata is saved. */
  clearedActions: string[];
  /** clear_metadata ran: the event catalog goes once the metadata is saved. */
  clearedEvents?: boolean;
}

const ARGS_OPTIONAL = new Set([
  "export_metadata",
  "clear_metadata",
  "reload_metadata",
  "get_inconsistent_metadata",
  "drop_inconsistent_metadata",
  "remove_api_limits",
  "get_cron_triggers",
]);
const BACKEND_PREFIXES: Record<string, string> = {
  pg: "postgres",
  mssql: "mssql",
  citus: "citus",
  cockroach: "cockroach",
  bigquery: "bigquery",
};

function unknownType(type: string, endpoint: MetadataEndpoint): HasuraError {
  if (endpoint !== "/v1/metadata") return parseFailed(`unknown query type "${type}"`, "$");
  const [prefix = "", ...rest] = type.split("_");
  const backend = BACKEND_PREFIXES[prefix];
  if (backend) return parseFailed(`unknown metadata command "${rest.join("_")}" for backend "${backend}"`, "$");
  return parseFailed(`unknown metadata command "${type}"; "${prefix}" was not recognized as a valid backend name`, "$");
}

/** Re-anchors an error raised inside a bulk step (`$.args`) at that step (`$.args[2].args`). */
function rebase(error: unknown, path: string): unknown {
  if (!(error instanceof HasuraError) || path === "$") return error;
  return underPath(error, path);
}

async function currentCatalog(state: RequestState, ctx: MetadataContext): Promise<CatalogView> {
  state.catalog ??= await ctx.catalog();
  return state.catalog;
}

async function runSqlStep(state: RequestState, args: Json, path: string, ctx: MetadataContext): Promise<unknown> {
  requireString(args, "sql", path);
  const before = await currentCatalog(state, ctx);
  // Without cascade, DDL that would take metadata objects with it is refused, as Hasura does;
  // tracked tables that the SQL drops are simply untracked.
  const refuseDependents =
    args.read_only === true || args.cascade === true
      ? undefined
      : (after: CatalogView) => {
          const renamed = followRenames(state.metadata, before, after);
          const lost = droppedDependents(renamed, pruneAfterSchemaChange(renamed, before, after));
          if (lost.length > 0) throw runSqlDependencyError(lost);
        };
  const result = await ctx.runSql(args as RunSqlArgs, refuseDependents);
  state.sideEffects = true;
  if (args.read_only !== true) {
    state.catalogBeforeDdl ??= before;
    state.catalog = await ctx.catalog();
    state.metadata = pruneAfterSchemaChange(followRenames(state.metadata, before, state.catalog), before, state.catalog);
    // Saved even when metadata did not change, so other instances re-read the altered schema.
    state.modified = true;
  }
  return result;
}

async function dmlStep(state: RequestState, type: string, args: Json, path: string, ctx: MetadataContext): Promise<unknown> {
  const source = sourceName(args, path);
  const table = qualifiedTable(requireKey(args, "table", path), at(path, "table"));
  if (type === "insert") {
    const objectsPath = at(path, "objects");
    for (const [i, o] of asArray(requireKey(args, "objects", path), objectsPath).entries()) asObject(o, at(objectsPath, i));
  }
  // The request's working metadata: the table may have been tracked earlier in the same bulk.
  requireTable(state.metadata, source, table, path);
  if (type !== "select" && type !== "count") state.sideEffects = true;
  return ctx.legacyDml(type, table, args, path);
}

async function runBulk(
  state: RequestState,
  request: Json,
  path: string,
  endpoint: MetadataEndpoint,
  ctx: MetadataContext,
): Promise<unknown[]> {
  const argsPath = at(path, "args");
  const steps = asArray(requireKey(request, "args", path), argsPath);
  const results: unknown[] = [];
  for (const [i, step] of steps.entries()) {
    if (request.type !== "bulk_keep_going") {
      results.push(await runStep(state, step, at(argsPath, i), endpoint, ctx));
      continue;
    }
    try {
      results.push(await runStep(state, step, at(argsPath, i), endpoint, ctx));
    } catch (error) {
      if (!(error instanceof HasuraError)) throw error;
      results.push({ path: error.path, error: error.message, code: error.hasuraCode });
    }
  }
  return results;
}

/** One operation, with errors re-anchored at `path` (the step's place in a bulk). */
async function runStep(
  state: RequestState,
  body: unknown,
  path: string,
  endpoint: MetadataEndpoint,
  ctx: MetadataContext,
): Promise<unknown> {
  const request = asObject(body, path);
  const type = requireString(request, "type", path);
  if (type === "bulk" || type === "bulk_atomic" || type === "bulk_keep_going") return runBulk(state, request, path, endpoint, ctx);
  try {
    return await runOperation(state, request, type, endpoint, ctx);
  } catch (error) {
    throw rebase(error, path);
  }
}

async function runOperation(
  state: RequestState,
  request: Json,
  type: string,
  endpoint: MetadataEndpoint,
  ctx: MetadataContext,
): Promise<unknown> {
  const legacy = endpoint !== "/v1/metadata";
  if (legacy && (type === "run_sql" || type === "pg_run_sql")) return runSqlStep(state, argsObject(request.args, ARGS), ARGS, ctx);
  if (legacy && LEGACY_DML.has(type)) return dmlStep(state, type, argsObject(request.args, ARGS), ARGS, ctx);
  if (endpoint !== "/v2/query" && EVENT_DATA_COMMANDS.has(type) && ctx.eventData) {
    state.sideEffects = true;
    return ctx.eventData(type, request.args, state.metadata);
  }
  const operation = endpoint === "/v2/query" ? undefined : findOperation(type);
  if (!operation) throw unknownType(type, endpoint);
  if (type === "export_metadata" && request.version === 2) {
    return { resource_version: state.resourceVersion, metadata: exportMetadata(state.metadata) };
  }
  const args = request.args === undefined && ARGS_OPTIONAL.has(type) ? {} : request.args;
  if (args === undefined) throw parseFailed(`key "args" not found`, "$");
  const remotes = ctx.remoteSchemas;
  if (operation.prepare && remotes) await operation.prepare(state.metadata, args, remotes);
  const { metadata, result } = operation.run(state.metadata, args, await currentCatalog(state, ctx), { remotes });
  state.metadata = metadata;
  if (type === "drop_action") {
    const dropped = args as Json;
    if (dropped.clear_data !== false) state.clearedActions.push(String(dropped.name));
  }
  if (type === "clear_metadata") state.clearedEvents = true;
  if (operation.modifies) state.modified = true;
  return result;
}

/** After a failed request whose SQL already changed the schema: untrack what the SQL dropped. */
async function reconcileAfterFailure(state: RequestState, loaded: { metadata: Metadata; resourceVersion: number }, ctx: MetadataContext) {
  if (!state.catalogBeforeDdl) return;
  try {
    const now = await ctx.catalog();
    const metadata = pruneAfterSchemaChange(followRenames(loaded.metadata, state.catalogBeforeDdl, now), state.catalogBeforeDdl, now);
    const version = await ctx.store.save(metadata, loaded.resourceVersion);
    await ctx.onMetadataChanged(metadata, version);
  } catch {
    // The request's own error is what the client needs; another instance saved meanwhile or
    // the database is gone, and the next reload will see the schema as it is.
  }
}

const queues = new WeakMap<object, Promise<unknown>>();

/** Runs `work` after every earlier request on the same store has finished. */
function serialized<T>(key: object, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  queues.set(
    key,
    run.catch(() => undefined),
  );
  return run;
}

const ATTEMPTS = 3;

/** Runs one admin request and returns its response body; throws HasuraError with Hasura's status. */
export async function runMetadataRequest(
  body: unknown,
  ctx: MetadataContext,
  endpoint: MetadataEndpoint = "/v1/metadata",
): Promise<unknown> {
  const request = asObject(body, "$");
  const named = request.resource_version;
  if (named !== undefined && (typeof named !== "number" || !Number.isInteger(named)))
    throw parseFailed("expected Int", "$.resource_version");
  const expected = endpoint === "/v1/metadata" ? (named as number | undefined) : undefined;

  return serialized(ctx.store, async () => {
    for (let attempt = 1; ; attempt++) {
      const loaded = await ctx.store.load();
      if (expected !== undefined && expected !== loaded.resourceVersion) throw resourceVersionConflict(expected);
      const state: RequestState = {
        metadata: loaded.metadata,
        resourceVersion: loaded.resourceVersion,
        modified: false,
        sideEffects: false,
        clearedActions: [],
      };
      let result: unknown;
      try {
        result = await runStep(state, request, "$", endpoint, ctx);
      } catch (error) {
        await reconcileAfterFailure(state, loaded, ctx);
        const bulk = typeof request.type === "string" && request.type.startsWith("bulk");
        throw endpoint === "/v1/query" && !bulk && error instanceof HasuraError ? legacyArgsPath(error) : error;
      }
      if (!state.modified) return result;
      try {
        const version = await ctx.store.save(state.metadata, expected ?? loaded.resourceVersion);
        await ctx.onMetadataChanged(state.metadata, version);
        if (state.clearedActions.length > 0) await ctx.clearActionLogs?.(state.clearedActions);
        if (state.clearedEvents) await ctx.clearEventCatalog?.();
        return result;
      } catch (error) {
        const retry = isResourceVersionConflict(error) && expected === undefined && !state.sideEffects && attempt < ATTEMPTS;
        if (!retry) throw error;
      }
    }
  });
}

/**
 * The remote schemas' fetched schemas, kept per URL and headers so that a metadata change that
 * does not touch a remote schema does not fetch it again (Hasura caches the fetch on the remote's
 * definition, buildRemoteSchemas in server/src-lib/Hasura/RemoteSchema/SchemaCache/Build.hs);
 * reload_remote_schema and reload_metadata fetch again. `resolve` decides, for a metadata and the
 * model of its database objects, which remote schemas are served and why the others are not
 * (reported as inconsistent objects of type `remote_schema`).
 */
import type { GraphQLSchema } from "graphql";
import { HasuraError } from "../errors/index.js";
import { isObject, type Json } from "../metadata/args.js";
import type { InconsistentObject } from "../metadata/consistency.js";
import type { Metadata } from "../metadata/types.js";
import type { Model } from "../model/types.js";
import { ADMIN_ROLE } from "../request/session.js";
import { RoleSchemaBuilder } from "../schema/build.js";
import { remoteRootNames, TakenNames } from "./conflicts.js";
import { fetchKey, readDefinition } from "./definition.js";
import { fetchIntrospection, servable } from "./fetch.js";
import type { Env } from "./http.js";
import { rolePermissionView } from "./permission.js";
import { type RemoteRelationshipModel, resolveRemoteRelationships } from "./relationships.js";
import type { RemoteIntrospection, RemoteSchemaModel } from "./types.js";

type Fetched = { introspection: RemoteIntrospection } | { error: HasuraError };

/** A remote schema entry's outcome: served as this model, or refused with this error. */
export type RemoteOutcome = RemoteSchemaModel | HasuraError;

export function remoteSchemaEntries(metadata: Metadata): Json[] {
  const list = metadata.remote_schemas;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

const isModel = (outcome: RemoteOutcome): outcome is RemoteSchemaModel => "introspection" in outcome;

/** How Hasura reports a remote schema: its metadata with `permissions` and `remote_relationships` lists. */
function reported(entry: Json): Json {
  const { name, definition, comment, permissions, remote_relationships } = entry;
  return {
    name,
    definition,
    ...(comment !== undefined ? { comment } : {}),
    permissions: Array.isArray(permissions) ? permissions : [],
    remote_relationships: Array.isArray(remote_relationships) ? remote_relationships : [],
  };
}

/** Hasura's report of a remote schema permission that does not resolve (MORemoteSchemaPermissions). */
function permissionInconsistency(schema: string, permission: Json, reason: string): InconsistentObject {
  const { role, definition, comment } = permission;
  return {
    definition: { remote_schema: schema, role, definition, comment: comment ?? null },
    name: `remote_schema_permission ${String(role)} permission in remote schema ${schema}`,
    reason: `Inconsistent object: ${reason}`,
    type: "remote_schema_permission",
  };
}

function permissionEntries(entry: Json): Json[] {
  return Array.isArray(entry.permissions) ? entry.permissions.filter(isObject) : [];
}

export function remoteInconsistency(entry: Json, reason: string, internal?: unknown): InconsistentObject {
  return {
    definition: reported(entry),
    name: `remote_schema ${String(entry.name)}`,
    reason: `Inconsistent object: ${reason}`,
    type: "remote_schema",
    ...(internal !== undefined ? { message: internal } : {}),
  };
}

export interface ResolvedRemotes {
  served: RemoteSchemaModel[];
  inconsistent: InconsistentObject[];
  /** The tables' remote relationships to the served remote schemas, by table key. */
  relationships: Map<string, RemoteRelationshipModel[]>;
}

/** What the metadata commands use of the remote schemas (runtime.ts binds it to the model served now). */
export interface RemoteSchemaAccess {
  /** One entry's schema fetched (again with `force`), and its outcome before conflicts. */
  fetch(entry: Json, force?: boolean): Promise<RemoteOutcome>;
  /** Fetches the remote schemas of `metadata` not fetched yet, and again those `refetch` names. */
  load(metadata: Metadata, refetch?: (name: string) => boolean): Promise<void>;
  /** Why the remote schemas of `metadata` would not be served next to the database objects served now. */
  inconsistencies(metadata: Metadata): InconsistentObject[];
  /** The root field names the remote schemas served now add to query_root and mutation_root. */
  rootFieldNames(): Set<string>;
  /** HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: add_remote_schema_permissions is refused without it. */
  permissionsEnabled: boolean;
  /** The remote schema served now by that name. */
  served(name: string): RemoteSchemaModel | undefined;
  /** Hasura's error for a permission `definition` of `role` on the served remote `name`, if it does not resolve. */
  permissionError(name: string, role: string, definition: unknown): HasuraError | undefined;
}

export class RemoteSchemaRegistry {
  private readonly fetched = new Map<string, Fetched>();
  private readonly inFlight = new Map<string, Promise<Fetched>>();
  private readonly checked = new Map<string, { fetched: Fetched; outcome: RemoteOutcome }>();
  /** The database objects' own admin schema, per model (the metadata commands check against the one served). */
  private readonly localSchemas = new WeakMap<Model, GraphQLSchema>();
  /** Each remote's permissions resolved, per (role, definition), for as long as its fetched schema is kept. */
  private readonly views = new WeakMap<RemoteSchemaModel, Map<string, ReturnType<typeof rolePermissionView>>>();

  constructor(private readonly env: () => Env) {}

  /** The entry's schema fetched (again with `force`); its outcome before conflicts with the rest of the schema. */
  async fetch(entry: Json, force = false): Promise<RemoteOutcome> {
    let definition: ReturnType<typeof readDefinition>;
    try {
      definition = readDefinition(isObject(entry.definition) ? entry.definition : {});
    } catch (error) {
      return error as HasuraError;
    }
    const key = fetchKey(definition);
    if (force || !this.fetched.has(key)) {
      let running = this.inFlight.get(key);
      if (!running || force) {
        running = fetchIntrospection(definition, this.env()).then(
          (introspection): Fetched => ({ introspection }),
          (error: unknown): Fetched => {
            if (error instanceof HasuraError) return { error };
            throw error;
          },
        );
        this.inFlight.set(key, running);
      }
      try {
        this.fetched.set(key, await running);
      } finally {
        if (this.inFlight.get(key) === running) this.inFlight.delete(key);
      }
    }
    return this.outcome(entry) as RemoteOutcome;
  }

  /** Fetches the remote schemas of `metadata` not fetched yet, and again those `refetch` names. */
  async load(metadata: Metadata, refetch: (name: string) => boolean = () => false): Promise<void> {
    await Promise.all(remoteSchemaEntries(metadata).map((entry) => this.fetch(entry, refetch(String(entry.name)))));
  }

  /** Forgets fetches no remote schema of `metadata` uses any more. */
  prune(metadata: Metadata): void {
    const used = new Set<string>();
    for (const entry of remoteSchemaEntries(metadata)) {
      try {
        used.add(fetchKey(readDefinition(isObject(entry.definition) ? entry.definition : {})));
      } catch {
        // A definition that cannot be read has no fetch to keep.
      }
    }
    for (const key of this.fetched.keys()) if (!used.has(key)) this.fetched.delete(key);
    const live = new Set(this.fetched.values());
    for (const [key, { fetched }] of this.checked) if (!live.has(fetched)) this.checked.delete(key);
  }

  /** The entry's outcome from what was fetched; undefined when it never was. */
  outcome(entry: Json): RemoteOutcome | undefined {
    let definition: ReturnType<typeof readDefinition>;
    try {
      definition = readDefinition(isObject(entry.definition) ? entry.definition : {});
    } catch (error) {
      return error as HasuraError;
    }
    const fetched = this.fetched.get(fetchKey(definition));
    if (!fetched) return undefined;
    if ("error" in fetched) return fetched.error;
    // Checking the customized schema walks all of it: done once per fetch, name and customization.
    const key = JSON.stringify([entry.name, definition]);
    const known = this.checked.get(key);
    if (known?.fetched === fetched) return known.outcome;
    const outcome = servable(String(entry.name), definition, fetched.introspection);
    this.checked.set(key, { fetched, outcome });
    return outcome;
  }

  /** A role's view of a served remote from its permission's definition, resolved once per definition. */
  private view(remote: RemoteSchemaModel, role: string, definition: unknown): ReturnType<typeof rolePermissionView> {
    let known = this.views.get(remote);
    if (!known) {
      known = new Map();
      this.views.set(remote, known);
    }
    const key = JSON.stringify([role, definition]);
    let view = known.get(key);
    if (!view) {
      view = rolePermissionView(remote.introspection, role, definition);
      known.set(key, view);
    }
    return view;
  }

  /** The remote with its roles' views; the permissions that do not resolve are reported. */
  private withPermissions(entry: Json, remote: RemoteSchemaModel, inconsistent: InconsistentObject[]): RemoteSchemaModel {
    const permissions = new Map<string, RemoteIntrospection>();
    for (const permission of permissionEntries(entry)) {
      const view = this.view(remote, String(permission.role), permission.definition);
      if (view instanceof HasuraError) inconsistent.push(permissionInconsistency(remote.name, permission, view.message));
      else permissions.set(String(permission.role), view);
    }
    return permissions.size > 0 ? { ...remote, permissions } : remote;
  }

  /** This registry seen from the metadata commands, against the model `served` gives. */
  access(served: () => Model, permissionsEnabled = false): RemoteSchemaAccess {
    const servedRemote = (name: string) => served().remoteSchemas?.find((r) => r.name === name);
    return {
      permissionsEnabled,
      served: servedRemote,
      permissionError: (name, role, definition) => {
        const remote = servedRemote(name);
        const view = remote ? this.view(remote, role, definition) : undefined;
        return view instanceof HasuraError ? view : undefined;
      },
      fetch: (entry, force) => this.fetch(entry, force),
      load: (metadata, refetch) => this.load(metadata, refetch),
      inconsistencies: (metadata) => this.resolve(metadata, served()).inconsistent,
      rootFieldNames: () =>
        new Set((served().remoteSchemas ?? []).flatMap((r) => [...remoteRootNames(r, "query"), ...remoteRootNames(r, "mutation")])),
    };
  }

  /** Which remote schemas of `metadata` are served next to `model`'s database objects, and why the others are not. */
  resolve(metadata: Metadata, model: Model): ResolvedRemotes {
    const entries = remoteSchemaEntries(metadata);
    const served: RemoteSchemaModel[] = [];
    const inconsistent: InconsistentObject[] = [];
    if (entries.length === 0) return this.withRelationships(metadata, model, served, inconsistent);
    // Without the tables' remote relationships: they bring the remote's types into the tables' own schema.
    const schemaWith = (remotes: RemoteSchemaModel[]) =>
      new RoleSchemaBuilder({ ...model, remoteSchemas: remotes, remoteRelationships: new Map() }, ADMIN_ROLE, true).build();
    let local = this.localSchemas.get(model);
    if (!local) {
      local = schemaWith([]);
      this.localSchemas.set(model, local);
    }
    const taken = new TakenNames(local);
    const accepted: Array<{ entry: Json; remote: RemoteSchemaModel }> = [];
    for (const entry of entries) {
      const outcome = this.outcome(entry);
      if (outcome === undefined) continue;
      if (!isModel(outcome)) {
        inconsistent.push(remoteInconsistency(entry, outcome.message, outcome.details));
        continue;
      }
      const reasons = taken.add(outcome);
      if (reasons.length === 0) accepted.push({ entry, remote: outcome });
      else for (const reason of reasons) inconsistent.push(remoteInconsistency(entry, reason));
    }
    // The checks above should leave nothing graphql-js refuses; should they not, the remote
    // schemas that break the schema are reported rather than every request failing.
    const builds = (remotes: RemoteSchemaModel[]): string | null => {
      try {
        schemaWith(remotes);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    };
    if (accepted.length > 0 && builds(accepted.map((a) => a.remote)) !== null) {
      for (const { entry, remote } of accepted) {
        const problem = builds([...served, remote]);
        if (problem === null) served.push(remote);
        else inconsistent.push(remoteInconsistency(entry, problem));
      }
    } else served.push(...accepted.map((a) => a.remote));
    const entryOf = new Map(accepted.map((a) => [a.remote, a.entry]));
    const permitted = served.map((remote) => this.withPermissions(entryOf.get(remote) as Json, remote, inconsistent));
    return this.withRelationships(metadata, model, permitted, inconsistent);
  }

  /** The tables' remote relationships resolved against the remote schemas served; those that do not resolve are reported. */
  private withRelationships(
    metadata: Metadata,
    model: Model,
    served: RemoteSchemaModel[],
    inconsistent: InconsistentObject[],
  ): ResolvedRemotes {
    const relationships = resolveRemoteRelationships(metadata, model.tables, served);
    return { served, inconsistent: [...inconsistent, ...relationships.inconsistent], relationships: relationships.byTable };
  }
}

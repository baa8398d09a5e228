/**
 * The running engine over one database: metadata in hdb_catalog (shared by every instance),
 * the catalog of the tracked tables, the model and the Engine built from them. A change made
 * through the metadata API here rebuilds at once; a change made by another instance is seen
 * by polling the stored resource_version.
 */
import { type Database, type Logger, sql } from "@platform/core";
import { loadEnumValues } from "./engine/catalog/enum-table.js";
import { introspect, introspectBaseTypes } from "./engine/catalog/introspect.js";
import { runSql, type SqlRunner } from "./engine/catalog/run-sql.js";
import { sqlRunnerFor } from "./engine/catalog/run-sql-adapters.js";
import type { PgCatalog } from "./engine/catalog/types.js";
import type { Dependencies } from "./engine/compiler/context.js";
import type { HasuraError } from "./engine/errors/index.js";
import { runEventDataCommand } from "./engine/eventing/api.js";
import { syncCapture } from "./engine/eventing/capture.js";
import { dropEventCatalog } from "./engine/eventing/catalog.js";
import { cronTriggersOf, syncCronEvents } from "./engine/eventing/cron.js";
import type { ScheduledWorker } from "./engine/eventing/scheduled-worker.js";
import { eventTriggersOf } from "./engine/eventing/triggers.js";
import { DEFAULT_LEASE_MS, type EventWorker } from "./engine/eventing/worker.js";
import { Engine, type EngineOptions, type GraphQLRequest, type GraphQLResponse, type Started } from "./engine/execute.js";
import { StatementCounter } from "./engine/executors/statement-counter.js";
import { type RequestContext, RequestGuard } from "./engine/limits/guard.js";
import { type MetadataContext, type MetadataEndpoint, runMetadataRequest } from "./engine/metadata/api.js";
import { catalogViewOf } from "./engine/metadata/catalog-view.js";
import { runLegacyDml } from "./engine/metadata/dml.js";
import { allInconsistencies, logNewInconsistencies } from "./engine/metadata/inconsistency-log.js";
import { MetadataStore, type MetadataStoreOptions } from "./engine/metadata/store.js";
import { DEFAULT_SOURCE, type Metadata } from "./engine/metadata/types.js";
import { buildModel } from "./engine/model/build.js";
import { functionsNamedBy } from "./engine/model/build-functions.js";
import type { Model } from "./engine/model/types.js";
import { RemoteSchemaRegistry } from "./engine/remote/registry.js";
import type { Session } from "./engine/request/session.js";
import { ChangeSignal } from "./engine/subscriptions/change-signal.js";
import type { Subscriber } from "./engine/subscriptions/poller.js";

export class GraphqlRuntime {
  private engine: Engine;
  private version = -1;
  private timer: NodeJS.Timeout | undefined;
  private readonly store: MetadataStore;
  private readonly runner: SqlRunner;
  /** The remote schemas' fetched schemas, kept across rebuilds. */
  private readonly remotes: RemoteSchemaRegistry;
  /** The inconsistent objects already logged (inconsistency-log.ts). */
  private loggedInconsistencies: ReadonlySet<string> = new Set();
  /** Counts the statements every Engine sends for GraphQL requests. */
  private readonly counter = new StatementCounter();
  /** The database as the engines see it: through the counter. */
  private readonly engineDb: Database;
  /** Tells live queries when their tables changed (one listening connection per instance); none when turned off. */
  private readonly signal: ChangeSignal | undefined;
  /** What every Engine is made with: the options, and the signal. */
  private readonly engineOptions: EngineOptions;
  /** Delivers event triggers' and scheduled triggers' events, when the server runs them (attachEvents). */
  private events: EventWorker | undefined;
  private scheduled: ScheduledWorker | undefined;

  constructor(
    readonly db: Database,
    private readonly options: EngineOptions,
    private readonly log?: Pick<Logger, "info" | "warn" | "error">,
    storeOptions: MetadataStoreOptions = {},
    /** The time limit and the API limits requests run within. */
    private readonly guard = new RequestGuard(),
  ) {
    this.store = new MetadataStore(db, storeOptions);
    this.remotes = new RemoteSchemaRegistry(() => options.env ?? process.env);
    this.runner = sqlRunnerFor(db);
    this.engineDb = this.counter.wrap(db);
    this.signal = options.changeSignal === false ? undefined : new ChangeSignal(db, log);
    this.engineOptions = this.signal ? { ...options, subscriptions: { ...options.subscriptions, signal: this.signal } } : options;
    this.engine = new Engine(
      this.engineDb,
      buildModel({ version: 3, sources: [] }, { tables: new Map(), enumValues: new Map() }),
      this.engineOptions,
    );
  }

  /** Called after the served metadata changed (not at the first load). */
  private readonly metadataListeners = new Set<() => void>();

  onMetadataChange(listener: () => void): () => void {
    this.metadataListeners.add(listener);
    return () => this.metadataListeners.delete(listener);
  }

  /** What the current engine's live pollers read, one entry per poller. */
  get pollerReads(): Dependencies[] {
    return this.engine.pollerReads;
  }

  /** Subscribers the current engine serves. */
  get subscribers(): number {
    return this.engine.subscribers;
  }

  /** How many statements GraphQL requests have sent to the database so far. */
  get statementsSent(): number {
    return this.counter.sent;
  }

  /** The model the current engine serves. */
  currentModel(): Model {
    return this.engine.model;
  }

  async init(): Promise<void> {
    await this.store.init();
    await this.signal?.start();
    await this.refresh(true);
  }

  /** Replaces the stored metadata when it differs (the cli-migrations image applies its metadata directory at every start). */
  async applyMetadata(metadata: Metadata): Promise<void> {
    const stored = await this.store.load();
    if (JSON.stringify(stored.metadata) === JSON.stringify(metadata)) return;
    await this.store.save(metadata);
    await this.refresh(true);
  }

  /** Rebuilds when the stored resource_version moved (or always with `force`). */
  async refresh(force = false): Promise<void> {
    const current = await this.store.currentVersion();
    if (!force && current === this.version) return;
    const stored = await this.store.load();
    await this.rebuild(stored.metadata, stored.resourceVersion);
  }

  /** `prune`: the change came through this instance's metadata API (its metadata is the newest). */
  private async rebuild(metadata: Metadata, version: number, prune = false): Promise<void> {
    const source = metadata.sources.find((s) => s.name === DEFAULT_SOURCE) ?? metadata.sources[0];
    const tracked = (source?.tables ?? []).map((t) => t.table);
    const catalog: PgCatalog =
      tracked.length > 0 ? await introspect(this.db, tracked, functionsNamedBy(source)) : { tables: new Map(), enumValues: new Map() };
    // Actions' types may name Postgres scalars (`uuid`, `jsonb`): those are read when there are any.
    if (metadata.actions !== undefined || metadata.custom_types !== undefined) catalog.baseTypes = await introspectBaseTypes(this.db);
    for (const t of source?.tables ?? []) {
      const pg = t.is_enum ? catalog.tables.get(`${t.table.schema}.${t.table.name}`) : undefined;
      if (pg) catalog.enumValues.set(`${pg.schema}.${pg.name}`, await loadEnumValues(this.db, pg));
    }
    // Remote schemas are fetched once per definition (reloads fetch again): rebuilds for other changes reuse them.
    await this.remotes.load(metadata);
    this.remotes.prune(metadata);
    const model = buildModel(metadata, catalog);
    const remotes = this.remotes.resolve(metadata, model);
    model.remoteSchemas = remotes.served;
    model.remoteRelationships = remotes.relationships;
    model.remoteSchemaPermissions = this.options.remoteSchemaPermissions === true;
    await this.signal?.instrument(model.tables.values(), prune);
    await this.syncEvents(metadata, source?.name ?? DEFAULT_SOURCE, prune);
    const replaced = this.engine;
    this.engine = new Engine(this.engineDb, model, this.engineOptions);
    this.guard.setApiLimits(metadata.api_limits);
    // What the old engine served is stopped; WebSockets are told to close (1012), so a permission
    // revoked here stops streaming at once, on every instance that picks the change up.
    replaced.close();
    const changed = this.version !== -1;
    this.version = version;
    if (changed) for (const listener of this.metadataListeners) listener();
    this.log?.info({ resourceVersion: version, tables: catalog.tables.size }, "metadata loaded");
    // Only the default source is introspected, so only its objects are checked.
    const served = { ...metadata, sources: source ? [source] : [] };
    this.loggedInconsistencies = logNewInconsistencies(
      this.log,
      allInconsistencies(served, catalogViewOf(catalog), remotes.inconsistent),
      this.loggedInconsistencies,
    );
  }

  /**
   * The event triggers' capture in the database and the cron triggers' next runs (before the
   * metadata API answers, as Hasura does), and the workers delivering their events.
   */
  private async syncEvents(metadata: Metadata, source: string, prune: boolean): Promise<void> {
    const triggers = eventTriggersOf(metadata, source);
    try {
      await syncCapture(this.db, triggers.values(), prune);
    } catch (error) {
      this.log?.error({ err: error }, "the event triggers' capture could not be installed");
    }
    this.events?.setTriggers(triggers);
    const cron = cronTriggersOf(metadata);
    try {
      await syncCronEvents(this.db, cron.values());
    } catch (error) {
      this.log?.error({ err: error }, "the cron triggers' next runs could not be materialised");
    }
    this.scheduled?.setTriggers(cron);
  }

  /**
   * Has `worker` deliver the events of the metadata's event triggers and `scheduled` those of its
   * cron triggers and one-off scheduled events (set before init, so the first
   * load reaches it); writes to their tables wake it at once when the change signal is up.
   */
  attachEvents(worker: EventWorker, scheduled?: ScheduledWorker): void {
    this.events = worker;
    this.scheduled = scheduled;
    this.signal?.attach({
      changed: (table) => {
        if (worker.captures(table)) worker.wake();
      },
      listening: (up) => {
        if (up) worker.wake();
      },
    });
  }

  startPolling(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.log?.warn({ err: error }, "metadata refresh failed"));
    }, intervalMs);
    this.timer.unref();
  }

  stopPolling(): void {
    clearInterval(this.timer);
  }

  execute(request: GraphQLRequest, session: Session, context: RequestContext = {}): Promise<GraphQLResponse> {
    const engine = this.engine;
    return this.guard.run(session, context, (options) => engine.respond(request, session, options));
  }

  /** Starts an operation sent over a WebSocket: a subscription served to `subscriber`, or a query's or mutation's answer. */
  start(request: GraphQLRequest, session: Session, context: RequestContext, subscriber: Subscriber): Promise<Started> {
    const engine = this.engine;
    return this.guard.start(
      session,
      context,
      (options) => engine.start(request, session, options, subscriber),
      (response): Started => ({ kind: "answer", response }),
    );
  }

  /** Stops the current engine's subscriptions (the server stops). */
  async close(): Promise<void> {
    this.stopPolling();
    this.engine.close();
    await this.signal?.stop();
  }

  /** The API limits' error for a batch of `size` operations, if it is too large for the session's role. */
  batchError(session: Session, size: number): HasuraError | undefined {
    return this.guard.batchError(session, size);
  }

  /** A metadata or schema API request; `session` (the admin's session variables) is recorded by legacy data operations. */
  admin(endpoint: MetadataEndpoint, body: unknown, session: Record<string, string> = { "x-hasura-role": "admin" }): Promise<unknown> {
    const ctx: MetadataContext = {
      store: this.store,
      remoteSchemas: this.remotes.access(() => this.engine.model, this.options.remoteSchemaPermissions === true),
      catalog: async () => catalogViewOf(await introspect(this.db)),
      runSql: (args, check) =>
        runSql(this.runner, args, check ? { beforeCommit: async (tx) => check(catalogViewOf(await introspect(tx))) } : {}),
      legacyDml: (type, table, args, path) => runLegacyDml(this.db, type, table, args, path, session),
      onMetadataChanged: (metadata, version) => this.rebuild(metadata, version, true),
      eventData: (type, args, metadata) =>
        runEventDataCommand(type, args, {
          db: this.db,
          metadata,
          leaseMs: this.events?.leaseMs ?? DEFAULT_LEASE_MS,
          wake: () => this.events?.wake(),
          wakeScheduled: () => this.scheduled?.wake(),
        }),
      clearEventCatalog: () => dropEventCatalog(this.db),
      clearActionLogs: async (actions) => {
        await this.db.query(sql`DELETE FROM hdb_catalog.hdb_action_log WHERE action_name = ANY(${actions}::text[])`);
      },
    };
    return runMetadataRequest(body, ctx, endpoint);
  }
}

/**
 * The engine's one entry point: respond(request, session) -> the response's JSON text. A request
 * flows down once, through the rooms of this folder in order: request/ (the document parsed and
 * validated for the session's role, the operation chosen, its variables checked), then the one
 * executor of its operation's kind (executors/: a query's cached statement, a mutation's
 * transaction), which plans it (plan/), compiles the plan (compiler/) and runs the SQL. Errors
 * are the catalogue's (errors/). The Engine holds what outlives a request: the role schemas and
 * the caches.
 */
import type { Database, Logger } from "@platform/core";
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from "graphql";
import type { CompileOptions, Dependencies } from "./compiler/context.js";
import { errorBody } from "./errors/body.js";
import { HasuraError, RemoteErrors, remoteSubscriptionNotSupported, requestCancelled, subscriptionOverHttp } from "./errors/index.js";
import { fromPostgres } from "./errors/postgres.js";
import type { Execution } from "./executors/context.js";
import { runMutation } from "./executors/mutation.js";
import { QueryExecutor } from "./executors/query.js";
import { SubscriptionExecutor, type SubscriptionOptions } from "./executors/subscription.js";
import { DEFAULT_STATEMENT_BOUNDS, ResponseBudget, type StatementBounds } from "./limits/statements.js";
import type { Model } from "./model/types.js";
import { rootFields } from "./plan/operation.js";
import { selectsRemoteField } from "./plan/remote.js";
import { type GraphQLRequest, type Operation, RequestPipeline } from "./request/operation.js";
import { ADMIN_ROLE, type Session } from "./request/session.js";
import { RoleSchemaBuilder } from "./schema/build.js";
import type { Subscriber } from "./subscriptions/poller.js";

export { errorBody } from "./errors/body.js";
export type { GraphQLRequest } from "./request/operation.js";

/** PGlite's regex compiler overflows inside WebAssembly at some 15,000 characters (errors/limits.ts patternTooLong). */
const PGLITE_MAX_PATTERN = 4096;

export interface EngineOptions {
  booleanNullCollapse: boolean;
  /** HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES: bigint and numeric values (and numeric aggregates) as JSON strings. */
  stringifyNumeric?: boolean;
  /** HASURA_GRAPHQL_DEV_MODE: every role's errors carry `extensions.internal`. */
  devMode?: boolean;
  /** HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS (Hasura's default: true): the admin role's errors carry it. */
  adminInternalErrors?: boolean;
  /** Where unexpected errors are logged, with their stack and the request's id. */
  logger?: Pick<Logger, "error" | "debug">;
  /** Where action handler URL templates (`{{VAR}}`) and `value_from_env` headers are read; process.env when absent. */
  env?: Record<string, string | undefined>;
  /** HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (model/types.ts `remoteSchemaPermissions`). */
  remoteSchemaPermissions?: boolean;
  /** How large statements and answers may be, for every role (limits/statements.ts); its defaults when absent. */
  bounds?: StatementBounds;
  /** How live queries are polled (Hasura's HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_* settings); Hasura's defaults when absent. */
  subscriptions?: Partial<Omit<SubscriptionOptions, "responseBytes" | "logger">>;
  /**
   * Whether live queries poll when the tables they read changed rather than every refetch interval
   * (HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL, on by default): the runtime makes the signal.
   */
  changeSignal?: boolean;
}

/** A response of /v1/graphql: its JSON text, and whether it reports errors (the legacy endpoint answers those with 400). */
export interface GraphQLResponse {
  body: string;
  failed: boolean;
  /** Set-Cookie headers of action handlers, passed on to the client as Hasura does. */
  setCookies?: string[];
  /** The error was raised while the operation ran, not while it was planned (HasuraError.duringExecution). */
  duringExecution?: boolean;
}

/**
 * A query's or mutation's answer as a socket sends it: an error raised while the operation ran is
 * its result, `{"data":null,"errors":[...]}`, as Hasura sends it (a `data`/`next` message); one
 * raised before is a refusal (`error`).
 */
function overSocket(response: GraphQLResponse): GraphQLResponse {
  if (!response.failed || !response.duringExecution) return response;
  return { ...response, body: `{"data":null,${response.body.slice(1)}`, failed: false };
}

/** Per request: how it is cancelled and checked before its SQL runs (limits/guard.ts builds it). */
export interface ExecuteOptions {
  /** Cancels the request's statements (client gone, time limit passed); the response is then the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Throws a HasuraError to refuse the operation before any SQL runs (API limits' depth and node limits). */
  checkOperation?: ((document: DocumentNode, operation: OperationDefinitionNode) => void) | undefined;
  /** The request's id, logged with an unexpected error. */
  requestId?: string | undefined;
  /** The client's request headers (lower-case names), forwarded to action handlers that ask for them. */
  headers?: Record<string, string> | undefined;
  /** The role's cost limit (limits/cost.ts): PostgreSQL's estimate of a query's cost above it is refused. */
  costLimit?: number | undefined;
  /** The longest operand the role may give a pattern operator (`_like`, `_regex` and their kin). */
  patternLength?: number | undefined;
  /** The answers of the HTTP request so far (a batch shares one); a new budget of the engine's size when absent. */
  budget?: ResponseBudget | undefined;
}

export class Engine {
  private readonly schemas = new Map<string, GraphQLSchema>();
  private readonly requests = new RequestPipeline((role, backendOnly) => this.schemaFor(role, backendOnly));
  private readonly queries = new QueryExecutor();
  private readonly subscriptions: SubscriptionExecutor;

  /** What the compiler is told: the engine's options, and what this database can compile safely. */
  private readonly compileOptions: CompileOptions;
  private readonly bounds: StatementBounds;

  constructor(
    private readonly db: Database,
    /** What this engine serves (the async action worker reads the actions of the current one). */
    readonly model: Model,
    private readonly options: EngineOptions,
  ) {
    this.compileOptions = { ...options, maxPatternLength: db.kind === "pglite" ? PGLITE_MAX_PATTERN : undefined };
    this.bounds = options.bounds ?? DEFAULT_STATEMENT_BOUNDS;
    this.subscriptions = new SubscriptionExecutor({
      refetchMs: options.subscriptions?.refetchMs ?? 1000,
      batchSize: options.subscriptions?.batchSize ?? 100,
      signalGapMs: options.subscriptions?.signalGapMs ?? 100,
      streamRefetchMs: options.subscriptions?.streamRefetchMs ?? 1000,
      streamBatchSize: options.subscriptions?.streamBatchSize ?? 100,
      timeLimitMs: options.subscriptions?.timeLimitMs ?? 0,
      signal: options.subscriptions?.signal,
      responseBytes: this.bounds.responseBytes,
      logger: options.logger,
    });
  }

  /** The role's schema; backend_only mutations appear only for admin-secret requests that ask for them. */
  schemaFor(role: string, backendOnly = false): GraphQLSchema {
    const key = `${role}\u0000${backendOnly}`;
    let schema = this.schemas.get(key);
    if (!schema) {
      schema = new RoleSchemaBuilder(this.model, role, backendOnly).build();
      this.schemas.set(key, schema);
    }
    return schema;
  }

  /** Executes one request; always resolves to a response (errors included), as /v1/graphql answers 200. */
  async respond(request: GraphQLRequest, session: Session, options: ExecuteOptions = {}): Promise<GraphQLResponse> {
    const cookies: string[] = [];
    const setCookies = () => (cookies.length > 0 ? { setCookies: cookies } : {});
    try {
      return { body: await this.run(request, session, options, cookies), failed: false, ...setCookies() };
    } catch (error) {
      const answer = this.answerable(error, session, options);
      const body = errorBody(answer, this.showsInternal(session));
      // A remote schema's own `{data, errors}` is its answer, passed on as a result (a `data`/`next`
      // message over a socket, as Hasura sends it), not a refusal of the request.
      if (answer instanceof RemoteErrors) return { body, failed: false, ...setCookies() };
      return { body, failed: true, ...(answer.duringExecution ? { duringExecution: true } : {}), ...setCookies() };
    }
  }

  /** The response body of `respond`. */
  async execute(request: GraphQLRequest, session: Session, options: ExecuteOptions = {}): Promise<string> {
    return (await this.respond(request, session, options)).body;
  }

  /**
   * The error as the client is answered; an unexpected one (a database error without a Hasura
   * code, a fault of the engine) is logged with its stack and the request's id first. A request
   * cancelled because its client left is not a fault.
   */
  private answerable(error: unknown, session: Session, options: ExecuteOptions): HasuraError {
    const { signal, requestId } = options;
    if (signal?.aborted && error === signal.reason && !(error instanceof HasuraError)) {
      this.options.logger?.debug({ requestId, reason: String(signal.reason) }, "GraphQL request cancelled");
      return requestCancelled(signal.reason);
    }
    const answer = error instanceof HasuraError ? error : fromPostgres(error);
    if (answer.hasuraCode === "unexpected")
      this.options.logger?.error({ err: error, requestId, role: session.role }, "unexpected error answering a GraphQL request");
    return answer;
  }

  /** Whether this session's errors carry `extensions.internal` (Hasura: dev mode, or the admin role unless turned off). */
  private showsInternal(session: Session): boolean {
    return this.options.devMode === true || (session.role === ADMIN_ROLE && this.options.adminInternalErrors !== false);
  }

  /** The request down its one path: the request pipeline, then the executor of its operation's kind. */
  private run(request: GraphQLRequest, session: Session, options: ExecuteOptions, setCookies: string[]): Promise<string> {
    const operation = this.requests.operation(request, session, options.checkOperation);
    if (operation.kind === "subscription") throw subscriptionRefused(operation, subscriptionOverHttp());
    const checked = this.requests.withVariables(operation, request.variables);
    const execution = this.execution(options, setCookies);
    return checked.kind === "mutation" ? runMutation(checked, execution) : this.queries.run(checked, execution);
  }

  /**
   * Starts an operation sent over a WebSocket: a subscription is served to `subscriber` until
   * stopped; a query or a mutation is answered once, as over HTTP; a refusal is an answer too.
   */
  async start(request: GraphQLRequest, session: Session, options: ExecuteOptions, subscriber: Subscriber): Promise<Started> {
    const cookies: string[] = [];
    try {
      const operation = this.requests.operation(request, session, options.checkOperation);
      if (operation.kind !== "subscription") return { kind: "answer", response: overSocket(await this.respond(request, session, options)) };
      const refused = subscriptionRefused(operation, undefined);
      if (refused) throw refused;
      const checked = this.requests.withVariables(operation, request.variables);
      const showsInternal = this.showsInternal(session);
      const stop = await this.subscriptions.start(checked, this.execution(options, cookies), subscriber, showsInternal);
      return { kind: "subscription", stop };
    } catch (error) {
      const body = errorBody(this.answerable(error, session, options), this.showsInternal(session));
      return { kind: "answer", response: { body, failed: true } };
    }
  }

  /** Stops what outlives requests (the subscriptions' pollers): the engine is replaced or the server stops. */
  close(): void {
    this.subscriptions.close();
  }

  /** What the statements of the live pollers now running read (tables, and what cannot be observed). */
  get pollerReads(): Dependencies[] {
    return this.subscriptions.pollerReads;
  }

  /** Subscribers this engine serves now. */
  get subscribers(): number {
    return this.subscriptions.subscribers;
  }

  /** What the executors are given for one request. */
  private execution(options: ExecuteOptions, setCookies: string[]): Execution {
    const { patternLength } = options;
    return {
      db: this.db,
      model: this.model,
      compileOptions: patternLength === undefined ? this.compileOptions : { ...this.compileOptions, patternLength },
      signal: options.signal,
      headers: options.headers ?? {},
      env: this.options.env ?? process.env,
      setCookies,
      bounds: this.bounds,
      run: { budget: options.budget ?? new ResponseBudget(this.bounds.responseBytes), costLimit: options.costLimit },
    };
  }
}

/** What starting an operation over a WebSocket gave: an answer (a query's, a mutation's, a refusal), or a live subscription. */
export type Started = { kind: "answer"; response: GraphQLResponse } | { kind: "subscription"; stop(): void };

/**
 * A subscription the engine does not serve on this transport: over HTTP, none (`otherwise`); a
 * remote schema's field, on any. Undefined when it is served.
 */
function subscriptionRefused(operation: Operation, otherwise: HasuraError | undefined): HasuraError | undefined {
  const root = operation.schema.getSubscriptionType();
  if (root && selectsRemoteField(root, rootFields(operation, {}))) return remoteSubscriptionNotSupported();
  return otherwise;
}

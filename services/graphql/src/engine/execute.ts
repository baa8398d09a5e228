/**
 * The engine's one entry point: respond(request, session) -> the response's JSON text. `Engine`
 * coordinates: the document cache (parsing per query text), validation per (role, query), the
 * variables' checks (variables.ts), the planner (plan/: each selected field resolved against the
 * model into a typed node), then one executor per kind of operation (executors/: a query's
 * cached statement, a mutation's transaction, introspection through graphql-js), which run the
 * SQL the compiler (compiler/) builds from the plan. Errors are the catalogue's (errors/).
 */
import type { Database, Logger } from "@platform/core";
import {
  type DocumentNode,
  FieldsOnCorrectTypeRule,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  KnownArgumentNamesRule,
  KnownDirectivesRule,
  KnownTypeNamesRule,
  NoFragmentCyclesRule,
  NoUnusedVariablesRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  typeFromAST,
  UniqueDirectivesPerLocationRule,
  type ValidationRule,
  ValuesOfCorrectTypeRule,
  VariablesInAllowedPositionRule,
  validate,
} from "graphql";
import { HasuraValuesRule, type VariableUsage } from "./coercion-rule.js";
import { CompileContext, type CompileOptions } from "./compiler/context.js";
import { compileRootField } from "./compiler/root.js";
import {
  HasuraError,
  introspectionDisabled,
  noMutations,
  operationNotFound,
  persistedQueriesNotEnabled,
  queryKeyMissing,
  queryParseFailed,
  RemoteErrors,
  remoteSubscriptionNotSupported,
  requestCancelled,
  subscriptionOverHttp,
} from "./errors.js";
import { answerWithIntrospection } from "./executors/introspection.js";
import { runMutation } from "./executors/mutation.js";
import { type CompiledQuery, compileQuery, runQuery, runQueryOnce } from "./executors/query.js";
import { joinRemoteRelationships, remoteJoinNodes } from "./executors/remote-joins.js";
import { Lru } from "./lru.js";
import type { Model } from "./model/types.js";
import { fromPostgres } from "./pg-errors.js";
import { definitionOf, PlanContext } from "./plan/context.js";
import { collectFields, type Fragments } from "./plan/fields.js";
import { selectsRemoteField } from "./plan/remote.js";
import { planMutationField, planQueryField } from "./plan/root.js";
import { slotVariables } from "./plan/slots.js";
import type { Variables } from "./plan/values.js";
import { RoleSchemaBuilder } from "./schema/build.js";
import { ADMIN_ROLE, type Session } from "./session.js";
import { toHasuraError } from "./validation-errors.js";
import {
  HasuraArgumentsRule,
  HasuraDirectivesRule,
  HasuraFieldsRule,
  HasuraFragmentCyclesRule,
  HasuraKnownTypeNamesRule,
  HasuraVariablesInAllowedPositionRule,
} from "./validation-rules.js";
import { checkVariables } from "./variables.js";

/**
 * graphql-js's rules minus NoUnusedVariables (Hasura accepts variables an operation does not
 * use), with our own rules where Hasura words the error differently: literal values checked as
 * Hasura parses them (coercion-rule.ts), unknown fields and arguments, unknown, misplaced or
 * repeated directives, and fragment cycles (validation-rules.ts).
 */
const REPLACED = new Map<unknown, ValidationRule | null>([
  [NoUnusedVariablesRule, null],
  [ValuesOfCorrectTypeRule, HasuraValuesRule],
  [FieldsOnCorrectTypeRule, HasuraFieldsRule],
  [KnownArgumentNamesRule, HasuraArgumentsRule],
  [KnownDirectivesRule, HasuraDirectivesRule],
  [UniqueDirectivesPerLocationRule, null],
  [NoFragmentCyclesRule, HasuraFragmentCyclesRule],
  [KnownTypeNamesRule, HasuraKnownTypeNamesRule],
  [VariablesInAllowedPositionRule, HasuraVariablesInAllowedPositionRule],
]);
const RULES = specifiedRules.flatMap((rule) => {
  const replacement = REPLACED.get(rule);
  return replacement === undefined ? [rule] : replacement === null ? [] : [replacement];
});

/** PGlite's regex compiler overflows inside WebAssembly at some 15,000 characters (errors/limits.ts patternTooLong). */
const PGLITE_MAX_PATTERN = 4096;

export interface GraphQLRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

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
}

/** A response of /v1/graphql: its JSON text, and whether it reports errors (the legacy endpoint answers those with 400). */
export interface GraphQLResponse {
  body: string;
  failed: boolean;
  /** Set-Cookie headers of action handlers, passed on to the client as Hasura does. */
  setCookies?: string[];
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
}

function fragmentsOf(document: DocumentNode): Fragments {
  const fragments: Fragments = {};
  for (const def of document.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def as FragmentDefinitionNode;
  return fragments;
}

function variableTypes(schema: GraphQLSchema, operation: OperationDefinitionNode): Map<string, GraphQLInputType> {
  const types = new Map<string, GraphQLInputType>();
  for (const def of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, def.type);
    if (type) types.set(def.variable.name.value, type as GraphQLInputType);
  }
  return types;
}

/**
 * A GraphQL error response. With `internal`, the error's internal detail (the database's error,
 * the statement) is in `extensions.internal`, as Hasura adds it for the admin role and in dev mode.
 */
export function errorBody(error: HasuraError, internal = false): string {
  if (error instanceof RemoteErrors) return error.body();
  if (error.extensions !== undefined) return JSON.stringify({ errors: [{ message: error.message, extensions: error.extensions }] });
  const extensions = {
    path: error.path,
    code: error.hasuraCode,
    ...(internal && error.details !== undefined ? { internal: error.details } : {}),
  };
  return JSON.stringify({ errors: [{ message: error.message, extensions }] });
}

export class Engine {
  private readonly schemas = new Map<string, GraphQLSchema>();
  // Budgets in characters of query text (a parsed document takes some bytes per character), and
  // of statement text: an application's operations are a few kilobytes; far larger ones run uncached.
  private readonly documents = new Lru<DocumentNode | HasuraError>(4000, 1_000_000, 32_000);
  private readonly validated = new Lru<HasuraError | true>(4000, 1_000_000, 32_000);
  /** Where each operation uses its variables, per (role, query, operation name). */
  private readonly usages = new Lru<VariableUsage[]>(4000, 1_000_000, 32_000);
  private readonly compiled = new Lru<CompiledQuery>(2000, 4_000_000, 128_000);
  /** Operations (as `compiled` keys them) whose remote joins carry a request's values (variables expanded for a role's presets): planned for each request. */
  private readonly joining = new Lru<true>(2000, 1_000_000, 32_000);

  /** What the compiler is told: the engine's options, and what this database can compile safely. */
  private readonly compileOptions: CompileOptions;

  constructor(
    private readonly db: Database,
    /** What this engine serves (the async action worker reads the actions of the current one). */
    readonly model: Model,
    private readonly options: EngineOptions,
  ) {
    this.compileOptions = { ...options, maxPatternLength: db.kind === "pglite" ? PGLITE_MAX_PATTERN : undefined };
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
      return { body: errorBody(this.answerable(error, session, options), this.showsInternal(session)), failed: true, ...setCookies() };
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

  private document(query: string): DocumentNode {
    let doc = this.documents.get(query);
    if (!doc) {
      try {
        // No locations: they would keep every token of the text alive with the cached document.
        doc = parse(query, { noLocation: true });
      } catch (error) {
        // graphql-js's parser recurses: a document nested hundreds deep overflows the stack.
        doc =
          error instanceof RangeError
            ? queryParseFailed("the query is nested too deeply to parse")
            : queryParseFailed(error instanceof GraphQLError ? error.message : undefined);
      }
      this.documents.set(query, doc);
    }
    if (doc instanceof HasuraError) throw doc;
    return doc;
  }

  /** What an action call takes from the request (the executors add the database and the session). */
  private actionCall(query: string, options: ExecuteOptions, setCookies: string[], variables: Variables) {
    const env = this.options.env ?? process.env;
    return { query, clientHeaders: options.headers ?? {}, env, signal: options.signal, setCookies, variables };
  }

  private async run(request: GraphQLRequest, session: Session, options: ExecuteOptions, setCookies: string[]): Promise<string> {
    const extensions = request.extensions;
    if (extensions && typeof extensions === "object" && "persistedQuery" in extensions) throw persistedQueriesNotEnabled();
    if (typeof request.query !== "string") throw queryKeyMissing();
    const document = this.document(request.query);
    const backendOnly = session.isAdmin && session.useBackendOnly;
    const schema = this.schemaFor(session.role, backendOnly);
    const key = `${session.role}\u0000${backendOnly}\u0000${request.query}`;
    let valid = this.validated.get(key);
    if (!valid) {
      const errors = validate(schema, document, RULES);
      valid = errors.length > 0 ? toHasuraError(errors[0] as GraphQLError, document) : true;
      this.validated.set(key, valid);
    }
    if (valid instanceof HasuraError) throw valid;
    const operationName = typeof request.operationName === "string" ? request.operationName : undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation) throw operationNotFound(operationName);
    if (operation.operation === "mutation" && !schema.getMutationType()) throw noMutations();
    if (operation.operation === "subscription") {
      const subscriptionRoot = schema.getSubscriptionType();
      const selected = subscriptionRoot ? collectFields([operation.selectionSet], subscriptionRoot.name, fragmentsOf(document), {}) : [];
      if (subscriptionRoot && selectsRemoteField(subscriptionRoot, selected)) throw remoteSubscriptionNotSupported();
      throw subscriptionOverHttp();
    }
    options.checkOperation?.(document, operation);
    const usagesKey = `${key}\u0000${operationName ?? ""}`;
    const variables = checkVariables(schema, document, operation, request.variables, (compute) => {
      let usages = this.usages.get(usagesKey);
      if (!usages) {
        usages = compute();
        this.usages.set(usagesKey, usages);
      }
      return usages;
    });
    if (operation.operation === "mutation") {
      const fragments = fragmentsOf(document);
      const root = schema.getMutationType() as GraphQLObjectType;
      const planning = new PlanContext(this.model, session.role, variables, fragments, operation);
      const fields = collectFields([operation.selectionSet], root.name, fragments, variables).map((f) =>
        planMutationField(planning, root, f),
      );
      return runMutation(
        this.db,
        new CompileContext(this.model, session, this.compileOptions),
        fields,
        options.signal,
        this.actionCall(request.query, options, setCookies, variables),
      );
    }
    const input = { variables, session };
    const slots = slotVariables(variables, variableTypes(schema, operation));
    const slottedValues = slots.values;
    const planKey = `${usagesKey}\u0000${slots.signature}`;
    let compiled = this.compiled.get(planKey);
    if (!compiled) {
      // Only a statement not yet compiled needs the document's fragments (cached ones skip all this).
      const fragments = fragmentsOf(document);
      const root = schema.getQueryType() as GraphQLObjectType;
      const fields = collectFields([operation.selectionSet], root.name, fragments, slottedValues);
      const introspection = fields.some((f) => f.name === "__schema" || f.name === "__type");
      if (introspection && this.model.introspectionDisabled.has(session.role)) throw introspectionDisabled(session.role);
      const answeredByHandler = (kind: string | undefined) =>
        kind === "action" || kind === "async_action_query" || kind === "remote" || kind === "remote_namespace";
      const handled = introspection || fields.some((f) => answeredByHandler(definitionOf(root, f.name)?.info.kind));
      const known = handled || this.joining.get(planKey) === true;
      // Planned with slots for the variables' values: compiled below, the statement serves every request of this shape.
      const slotPlanning = new PlanContext(this.model, session.role, slottedValues, fragments, operation);
      const slotted = known ? [] : fields.map((f) => planQueryField(slotPlanning, root, f));
      // Remote relationships are joined after the statement (executors/remote-joins.ts), with the request's
      // variables: such a plan is cached like any other, unless a role's presets had to expand a variable's value
      // into it (its join nodes then carry this request's values), which is planned for each request.
      const joinNodes = known || !this.model.remoteRelationships?.size ? [] : slotted.flatMap(remoteJoinNodes);
      const perRequest = joinNodes.some((n) => Object.keys(n.values).length > 0);
      if (perRequest) this.joining.set(planKey, true);
      if (known || perRequest) {
        // Planned with the request's own values and run once: introspection answers from
        // graphql-js, actions from their handlers, the other data fields from one statement,
        // then their remote relationships from one call per relationship.
        const planning = new PlanContext(this.model, session.role, variables, fragments, operation);
        const planned = collectFields([operation.selectionSet], root.name, fragments, variables)
          .filter((f) => !f.name.startsWith("__") || f.name === "__typename")
          .map((f) => planQueryField(planning, root, f));
        const ctx = new CompileContext(this.model, session, this.compileOptions);
        const call = { ...this.actionCall(request.query, options, setCookies, variables), db: this.db, compile: ctx };
        const answered = await runQueryOnce(this.db, planned, (f) => compileRootField(ctx, f), input, call);
        const values = await joinRemoteRelationships(planned, answered, call);
        if (!introspection) return `{"data":{${planned.map((f, i) => `${JSON.stringify(f.key)}:${values[i]}`).join(",")}}}`;
        const data = planned.filter((f) => f.kind !== "typename");
        return answerWithIntrospection(
          schema,
          document,
          operationName,
          variables,
          data.map((f) => f.key),
          data.map((f) => values[planned.indexOf(f)] ?? "null"),
        );
      }
      const ctx = new CompileContext(this.model, session, this.compileOptions, true);
      compiled = compileQuery(slotted, (f) => compileRootField(ctx, f));
      if (joinNodes.length > 0) compiled.joins = slotted;
      const size = (compiled.statement?.text.length ?? 0) + 64 * (compiled.statement?.values.length ?? 0);
      // A statement too large to keep runs once, unnamed: neither pg's client nor the server keeps it prepared.
      if (!this.compiled.set(planKey, compiled, size)) compiled = { ...compiled, name: "" };
    }
    if (!compiled.joins) return runQuery(this.db, compiled, input, options.signal);
    const compile = new CompileContext(this.model, session, this.compileOptions);
    return runQuery(this.db, compiled, input, options.signal, {
      ...this.actionCall(request.query, options, setCookies, variables),
      compile,
    });
  }
}

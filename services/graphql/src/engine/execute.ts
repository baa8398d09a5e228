/**
 * The engine's one entry point: execute(request, session) -> JSON text of the response.
 * Parsing is cached per query text and validation per (role, query); every root table field
 * compiles to one SQL expression and all of an operation's fields run as one statement,
 * whose JSON text is spliced into the response without being parsed in JS. Introspection
 * goes through graphql-js on the role's schema.
 */
import {
  type Compiled,
  compile,
  type Database,
  ident,
  join,
  type Logger,
  type Queryable,
  type Sql,
  sql,
  statementName,
} from "@platform/core";
import {
  type DocumentNode,
  execute as executeGraphql,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputType,
  GraphQLNonNull,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isNonNullType,
  Kind,
  NoUnusedVariablesRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  typeFromAST,
  ValuesOfCorrectTypeRule,
  validate,
} from "graphql";

import { checkJsonValue } from "./coercion.js";
import { HasuraValuesRule, type VariableUsage, variableUsages } from "./coercion-rule.js";
import { CompileContext } from "./compiler/context.js";
import { type Collected, collectFields, type Fragments } from "./compiler/fields.js";
import { functionRootJson, runFunctionMutation } from "./compiler/functions.js";
import { runMutationField } from "./compiler/mutation.js";
import { aggregateJson, byPkJson, listJson } from "./compiler/select.js";
import { resolveParams, type SlotInput, slotVariables } from "./compiler/slot.js";
import { argumentValues, astValue, type Variables } from "./compiler/values.js";
import {
  fieldNotFound,
  HasuraError,
  jsonPath,
  missingVariable,
  nestedTooDeeply,
  noMutations,
  operationNotFound,
  persistedQueriesNotEnabled,
  queryKeyMissing,
  queryParseFailed,
  requestCancelled,
  subscriptionOnlyField,
  subscriptionOverHttp,
} from "./errors.js";
import { bindingNumbersAsText, toParam } from "./json-number.js";
import type { Model } from "./model/types.js";
import { type FailedStatement, fromPostgres } from "./pg-errors.js";
import { RoleSchemaBuilder } from "./schema/build.js";
import { fieldInfo, type MutationKind } from "./schema/field-info.js";
import { ADMIN_ROLE, type Session } from "./session.js";
import { toHasuraError } from "./validation-errors.js";

/**
 * graphql-js's rules minus NoUnusedVariables (Hasura accepts variables an operation does not
 * use), with literal values checked as Hasura parses them instead of by graphql-js coercion.
 */
const RULES = specifiedRules
  .filter((rule) => rule !== NoUnusedVariablesRule)
  .map((rule) => (rule === ValuesOfCorrectTypeRule ? HasuraValuesRule : rule));

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
}

/** A response of /v1/graphql: its JSON text, and whether it reports errors (the legacy endpoint answers those with 400). */
export interface GraphQLResponse {
  body: string;
  failed: boolean;
}

/** Per request: how it is cancelled and checked before its SQL runs (limits/guard.ts builds it). */
export interface ExecuteOptions {
  /** Cancels the request's statements (client gone, time limit passed); the response is then the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Throws a HasuraError to refuse the operation before any SQL runs (API limits' depth and node limits). */
  checkOperation?: ((document: DocumentNode, operation: OperationDefinitionNode) => void) | undefined;
  /** The request's id, logged with an unexpected error. */
  requestId?: string | undefined;
}

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    if (this.map.size >= this.size) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, value);
  }
}

/** A compiled query: one statement (absent when only __typename is asked) and how its columns fill the response. */
interface QueryPlan {
  statement: Compiled | null;
  name: string;
  /** Where each response key's JSON is: a column name, an index into the packed text[] column, or a constant. */
  keys: Array<{ prefix: string; column: string | number | null; constant: string }>;
}

/**
 * How deep (in JSON levels) a variable's value may nest: the engine's walks over values recurse,
 * and about 3,000 levels (`_and` in `_and` 1,500 deep) overflow the stack; half of that is kept.
 */
const MAX_INPUT_DEPTH = 1500;

/** The nesting depth of a JSON value, measured without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_INPUT_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Root fields selected as columns of their own; more are packed into one array (PostgreSQL's limit is 1,664 columns). */
const MAX_COLUMNS = 1000;

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

/** A statement's failure with the statement for `internal`; a cancellation stays the signal's reason. */
function failed(error: unknown, signal: AbortSignal | undefined, statement: FailedStatement): unknown {
  return signal?.aborted && error === signal.reason ? error : fromPostgres(error, "$", statement);
}

/**
 * A GraphQL error response. With `internal`, the error's internal detail (the database's error,
 * the statement) is in `extensions.internal`, as Hasura adds it for the admin role and in dev mode.
 */
export function errorBody(error: HasuraError, internal = false): string {
  const extensions = {
    path: error.path,
    code: error.hasuraCode,
    ...(internal && error.details !== undefined ? { internal: error.details } : {}),
  };
  return JSON.stringify({ errors: [{ message: error.message, extensions }] });
}

export class Engine {
  private readonly schemas = new Map<string, GraphQLSchema>();
  private readonly documents = new Lru<DocumentNode | HasuraError>(4000);
  private readonly validated = new Lru<HasuraError | true>(4000);
  /** Where each operation uses its variables, per (role, query, operation name). */
  private readonly usages = new Lru<VariableUsage[]>(4000);
  private readonly plans = new Lru<QueryPlan>(2000);

  constructor(
    private readonly db: Database,
    private readonly model: Model,
    private readonly options: EngineOptions,
  ) {}

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
    try {
      return { body: await this.run(request, session, options), failed: false };
    } catch (error) {
      return { body: errorBody(this.answerable(error, session, options), this.showsInternal(session)), failed: true };
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
        doc = parse(query);
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

  private async run(request: GraphQLRequest, session: Session, options: ExecuteOptions): Promise<string> {
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
    if (operation.operation === "subscription") throw subscriptionOverHttp();
    options.checkOperation?.(document, operation);
    const variables = this.variables(schema, document, operation, `${key}\u0000${operationName ?? ""}`, request.variables);
    if (operation.operation === "mutation") {
      const ctx = new CompileContext(this.model, session, variables, fragmentsOf(document), this.options);
      return this.mutate(ctx, schema.getMutationType() as GraphQLObjectType, operation, options.signal);
    }
    const slotted = slotVariables(variables, variableTypes(schema, operation));
    const planKey = `${key}\u0000${operationName ?? ""}\u0000${slotted.signature}`;
    let plan = this.plans.get(planKey);
    if (!plan) {
      const fragments = fragmentsOf(document);
      const rootType = schema.getQueryType() as GraphQLObjectType;
      const fields = collectFields([operation.selectionSet], rootType.name, fragments, slotted.values);
      if (fields.some((f) => f.name === "__schema" || f.name === "__type"))
        return this.introspect(schema, document, operationName, variables, session, fields, fragments, options.signal);
      plan = this.plan(new CompileContext(this.model, session, slotted.values, fragments, this.options, true), rootType, fields);
      this.plans.set(planKey, plan);
    }
    return this.runPlan(plan, { variables, session }, options.signal);
  }

  /** One statement for every root field of a query, with its parameters as slots, ready to run for any request of the same shape. */
  private plan(ctx: CompileContext, rootType: GraphQLObjectType, fields: Collected[]): QueryPlan {
    const data = fields.filter((f) => !f.name.startsWith("__"));
    const values = data.map((f) => sql`(${this.compileRoot(ctx, rootType, f)})::text`);
    // PostgreSQL selects at most 1,664 columns: past that, the fields come as one text[] column.
    const packed = values.length > MAX_COLUMNS;
    const select = packed
      ? sql`SELECT ARRAY[${join(values)}] AS f`
      : sql`SELECT ${join(values.map((v, i) => sql`${v} AS ${ident(`f${i}`)}`))}`;
    const statement = values.length > 0 ? compile(select, "postgres") : null;
    const keys = fields.map((f) => ({
      prefix: `${JSON.stringify(f.responseKey)}:`,
      column: f.name.startsWith("__") ? null : packed ? data.indexOf(f) : `f${data.indexOf(f)}`,
      constant: f.name === "__typename" ? JSON.stringify(rootType.name) : "null",
    }));
    return { statement, name: statement ? statementName(statement.text) : "", keys };
  }

  private async runPlan(plan: QueryPlan, input: SlotInput, signal?: AbortSignal): Promise<string> {
    let row: Record<string | number, string | null> = {};
    if (plan.statement) {
      const values = resolveParams(plan.statement.values, input);
      // Same operation shape, same text: PostgreSQL reuses the plan of the named prepared statement.
      const { rows } = await this.db
        .query<Record<string, unknown>>({ text: plan.statement.text, values }, { name: plan.name, signal })
        .catch((error: unknown) => {
          throw failed(error, signal, { text: plan.statement?.text ?? "", values, prepared: true });
        });
      const first = rows[0] ?? {};
      row = (Array.isArray(first.f) ? first.f : first) as Record<string | number, string | null>;
    }
    const parts = plan.keys.map((k) => k.prefix + (k.column === null ? k.constant : (row[k.column] ?? "null")));
    return `{"data":{${parts.join(",")}}}`;
  }

  /** A query with __schema or __type: its data fields are compiled as usual, then graphql-js answers the whole operation. */
  private async introspect(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | undefined,
    variables: Variables,
    session: Session,
    planned: Collected[],
    fragments: Fragments,
    signal?: AbortSignal,
  ): Promise<string> {
    const ctx = new CompileContext(this.model, session, variables, fragments, this.options);
    const rootType = schema.getQueryType() as GraphQLObjectType;
    // Only booleans steer @skip/@include and they are never slots: the fields collected for planning stand.
    const fields = planned.filter((f) => !f.name.startsWith("__"));
    const results = await this.runStatement(
      fields.map((f) => this.compileRoot(ctx, rootType, f)),
      signal,
    );
    return this.executeWithIntrospection(schema, document, operationName, variables, fields, results);
  }

  /** All mutation fields of a request run in order in one transaction: one failure rolls every one back. */
  private async mutate(
    ctx: CompileContext,
    root: GraphQLObjectType,
    operation: OperationDefinitionNode,
    signal?: AbortSignal,
  ): Promise<string> {
    const fields = collectFields([operation.selectionSet], root.name, ctx.fragments, ctx.variables);
    // The request's signal cancels whichever statement runs and rolls the transaction back.
    const inTransaction = <T>(work: (tx: Queryable) => Promise<T>) => this.db.transaction(work, { signal });
    const parts = await inTransaction(async (transaction) => {
      const tx = bindingNumbersAsText(transaction);
      // Triggers can read the session as Hasura exposes it: current_setting('hasura.user').
      await tx.query(
        sql`SELECT set_config('hasura.user', ${JSON.stringify({ ...ctx.session.variables, "x-hasura-role": ctx.session.role })}, true)`,
      );
      const out: string[] = [];
      for (const f of fields) {
        if (f.name === "__typename") {
          out.push(`${JSON.stringify(f.responseKey)}:${JSON.stringify(root.name)}`);
          continue;
        }
        const def = root.getFields()[f.name];
        const info = def ? fieldInfo(def.extensions) : undefined;
        if (!def || !info || !("table" in info)) throw fieldNotFound(f.name, `${root.name}`, jsonPath(["selectionSet", f.responseKey]));
        if (info.kind === "function") {
          out.push(`${JSON.stringify(f.responseKey)}:${await runFunctionMutation(ctx, tx, info.fn, f, def)}`);
          continue;
        }
        const path = info.kind.startsWith("insert")
          ? jsonPath(["selectionSet", f.responseKey, "args", info.kind === "insert" ? "objects" : "object"])
          : "$";
        try {
          const result = await runMutationField(ctx, tx, ctx.table(info.table), info.kind as MutationKind, f, def);
          out.push(`${JSON.stringify(f.responseKey)}:${result}`);
        } catch (error) {
          throw fromPostgres(error, path);
        }
      }
      return out;
    });
    return `{"data":{${parts.join(",")}}}`;
  }

  /**
   * The request's variables, checked as Hasura checks them: a required one must be given, and
   * each value is parsed where the operation uses it (errors point there).
   */
  private variables(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    key: string,
    raw: unknown,
  ): Variables {
    const inputs = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    for (const [name, value] of Object.entries(inputs)) if (depthOf(value) > MAX_INPUT_DEPTH) throw nestedTooDeeply(name, MAX_INPUT_DEPTH);
    const out: Variables = {};
    const required = new Set<string>();
    for (const def of operation.variableDefinitions ?? []) {
      const name = def.variable.name.value;
      if (def.type.kind === Kind.NON_NULL_TYPE) required.add(name);
      if (name in inputs) out[name] = inputs[name];
      else if (def.defaultValue) out[name] = astValue(def.defaultValue, {});
      else if (def.type.kind === Kind.NON_NULL_TYPE) throw missingVariable(name);
    }
    if (Object.keys(inputs).length === 0) return out;
    let usages = this.usages.get(key);
    if (!usages) {
      usages = variableUsages(schema, document, operation);
      this.usages.set(key, usages);
    }
    for (const usage of usages) {
      if (!(usage.name in inputs)) continue;
      const type = required.has(usage.name) && !isNonNullType(usage.type) ? new GraphQLNonNull(usage.type) : usage.type;
      checkJsonValue(inputs[usage.name], type, usage.mode, usage.path);
    }
    return out;
  }

  private compileRoot(ctx: CompileContext, root: GraphQLObjectType, field: Collected): Sql {
    const def = root.getFields()[field.name];
    const info = def ? fieldInfo(def.extensions) : undefined;
    const path = ["selectionSet", field.responseKey];
    if (!def || !info || !("table" in info)) throw fieldNotFound(field.name, `${root.name}`, jsonPath(path));
    const table = ctx.table(info.table);
    const objectType = getNamedType(def.type) as GraphQLObjectType;
    const args = argumentValues(field.node.arguments, ctx.variables, def.args);
    const sub = collectFields(field.selections, objectType.name, ctx.fragments, ctx.variables);
    if (info.kind === "function" || info.kind === "function_aggregate")
      return functionRootJson(ctx, info.fn, info.kind === "function_aggregate", args, sub, objectType, path);
    if (info.kind === "select") return listJson(ctx, table, args, sub, objectType, null, path);
    if (info.kind === "select_by_pk") return byPkJson(ctx, table, args, sub, objectType, path);
    if (info.kind === "select_aggregate") return aggregateJson(ctx, table, args, sub, objectType, null, path);
    throw subscriptionOnlyField(field.name, jsonPath(path));
  }

  /** Runs all root fields as one statement (one snapshot, one round trip); each column is JSON text. */
  private async runStatement(fields: Sql[], signal?: AbortSignal): Promise<string[]> {
    if (fields.length === 0) return [];
    const statement = sql`SELECT ${join(fields.map((f, i) => sql`(${f})::text AS ${ident(`f${i}`)}`))}`;
    // Same operation shape, same text: PostgreSQL reuses the plan of the named prepared statement.
    const { text, values } = compile(statement, "postgres");
    const params = values.map(toParam);
    const { rows } = await this.db
      .query<Record<string, string | null>>({ text, values: params }, { prepare: true, signal })
      .catch((error: unknown) => {
        throw failed(error, signal, { text, values: params, prepared: true });
      });
    return fields.map((_, i) => rows[0]?.[`f${i}`] ?? "null");
  }

  private async executeWithIntrospection(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | undefined,
    variables: Variables,
    fields: Collected[],
    results: string[],
  ): Promise<string> {
    const rootValue: Record<string, unknown> = {};
    fields.forEach((f, i) => {
      rootValue[f.responseKey] = JSON.parse(results[i] ?? "null");
    });
    const result = await executeGraphql({
      schema,
      document,
      rootValue,
      variableValues: variables,
      ...(operationName ? { operationName } : {}),
      fieldResolver: (source, _args, _ctx, info) => (source as Record<string, unknown> | null)?.[info.path.key as string],
    });
    if (result.errors && result.errors.length > 0) throw toHasuraError(result.errors[0] as GraphQLError, document);
    return JSON.stringify({ data: result.data });
  }
}

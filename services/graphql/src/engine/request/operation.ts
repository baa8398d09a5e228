/**
 * The request pipeline, the first room a request passes through: its body read, its query text
 * parsed (document.ts) and validated for the session's role (validate.ts), the operation to run
 * chosen, and its variables checked as Hasura checks them (variables.ts). What comes out is an
 * `Operation` the planner and the executors work from; nothing here knows of SQL.
 */
import { type DocumentNode, type GraphQLSchema, getOperationAST, type OperationDefinitionNode } from "graphql";
import { noMutations, noSubscriptions, operationNotFound, persistedQueriesNotEnabled, queryKeyMissing } from "../errors/index.js";
import type { Variables } from "../plan/values.js";
import type { VariableUsage } from "./coercion-rule.js";
import { Documents } from "./document.js";
import { Lru } from "./lru.js";
import type { Session } from "./session.js";
import { Validator } from "./validate.js";
import { checkVariables } from "./variables.js";

/** Refuses an operation by its document alone (limits/guard.ts: depth and node limits), before validation. */
export type OperationCheck = (document: DocumentNode, operation: OperationDefinitionNode) => void;

/** A GraphQL request body as a client sends it (one item of a batch). */
export interface GraphQLRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** One operation of a request, validated for the session's role. */
export interface Operation {
  /** The request's query text (actions are sent it as `request_query`). */
  query: string;
  document: DocumentNode;
  definition: OperationDefinitionNode;
  kind: OperationDefinitionNode["operation"];
  /** The operation name the request gave. */
  name: string | undefined;
  /** The role's schema (backend-only mutations in it when the admin asked for them). */
  schema: GraphQLSchema;
  session: Session;
  /** What the caches key an operation by: role, backend-only, query text and operation name. */
  key: string;
}

/** An operation with the request's variables checked: what the executors run. */
export interface CheckedOperation extends Operation {
  variables: Variables;
}

export class RequestPipeline {
  private readonly documents = new Documents();
  private readonly validator = new Validator();
  /** Where each operation uses its variables, per (role, query, operation name). */
  private readonly usages = new Lru<VariableUsage[]>(4000, 1_000_000, 32_000);

  constructor(
    /** The role's schema; backend_only mutations appear only for admin-secret requests that ask for them. */
    private readonly schemaFor: (role: string, backendOnly: boolean) => GraphQLSchema,
  ) {}

  /**
   * The operation a request asks for, parsed and validated (its variables are checked by
   * `withVariables`). `check` sees it before validation, which takes time in proportion to the
   * document: an operation over the depth or node limit is refused without that work.
   */
  operation(request: GraphQLRequest, session: Session, check?: OperationCheck): Operation {
    const extensions = request.extensions;
    if (extensions && typeof extensions === "object" && "persistedQuery" in extensions) throw persistedQueriesNotEnabled();
    if (typeof request.query !== "string") throw queryKeyMissing();
    const query = request.query;
    const document = this.documents.parse(query);
    const backendOnly = session.isAdmin && session.useBackendOnly;
    const schema = this.schemaFor(session.role, backendOnly);
    const name = typeof request.operationName === "string" ? request.operationName : undefined;
    const definition = getOperationAST(document, name);
    const validationKey = `${session.role}\u0000${backendOnly}\u0000${query}`;
    if (definition) check?.(document, definition);
    this.validator.check(schema, document, validationKey);
    if (!definition) throw operationNotFound(name);
    if (definition.operation === "mutation" && !schema.getMutationType()) throw noMutations();
    if (definition.operation === "subscription" && !schema.getSubscriptionType()) throw noSubscriptions();
    const key = `${validationKey}\u0000${name ?? ""}`;
    return { query, document, definition, kind: definition.operation, name, schema, session, key };
  }

  /** The operation with the request's variables checked against where it uses them. */
  withVariables(operation: Operation, raw: unknown): CheckedOperation {
    const variables = checkVariables(operation.schema, operation.document, operation.definition, raw, (compute) => {
      let usages = this.usages.get(operation.key);
      if (!usages) {
        usages = compute();
        this.usages.set(operation.key, usages);
      }
      return usages;
    });
    return { ...operation, variables };
  }
}

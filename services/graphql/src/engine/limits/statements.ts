/**
 * How large the statements of one operation may be, for every role (admin included): the main
 * defence against a request that runs away inside PostgreSQL. PostgreSQL plans a statement
 * before anything can look at it, and while it plans one it never checks for a cancel: a
 * statement of tens of thousands of subqueries (thousands of aliases of a nested selection) took
 * gigabytes of memory and minutes of a core, ignoring pg_cancel_backend and pg_terminate_backend.
 * So the bounds act before a statement is sent: an operation with more root fields than one
 * statement may hold is split over several statements run in one read-only snapshot (the answer
 * is the one a single statement gives), and one that is larger still is refused.
 *
 * A subquery here is a table or sub-select the compiler gives an alias (compiler/context.ts):
 * the rows of a root field, each relationship, aggregate, computed field returning rows and
 * relationship filter. The defaults are measured (bench/graphql/statement-size.ts on this
 * project's 2-core machine, PostgreSQL 15): planning stays linear up to some 8,000 subqueries in
 * one statement (about 0.03 ms and 90 KB of backend memory per subquery) and turns superlinear
 * past it (0.14 ms per subquery at 16,000, 0.36 ms at 32,000, with 4 GB of memory).
 */
import { operationSizeLimitExceeded, responseSizeLimitExceeded, statementSizeLimitExceeded } from "../errors/index.js";

export interface StatementBounds {
  /** Root fields one statement may hold; an operation with more is split over several statements. */
  rootFieldsPerStatement: number;
  /** Subqueries one statement may hold; a root field (or mutation statement) needing more is refused. */
  subqueriesPerStatement: number;
  /** Root fields an operation may have; above it the operation is refused. */
  rootFieldsPerOperation: number;
  /** Subqueries an operation's statements may hold in all; above it the operation is refused. */
  subqueriesPerOperation: number;
  /** Bytes of JSON an answer may take (a batch's answers together); past it the request is refused. */
  responseBytes: number;
}

/** The settings that raise each bound, named in the errors' `internal` (config.ts reads them). */
export const LIMIT_SETTINGS = {
  rootFieldsPerStatement: "HASURA_GRAPHQL_STATEMENT_ROOT_FIELDS",
  subqueriesPerStatement: "HASURA_GRAPHQL_STATEMENT_SUBQUERIES",
  rootFieldsPerOperation: "HASURA_GRAPHQL_OPERATION_ROOT_FIELDS",
  subqueriesPerOperation: "HASURA_GRAPHQL_OPERATION_SUBQUERIES",
  responseBytes: "HASURA_GRAPHQL_RESPONSE_SIZE_LIMIT",
  patternLength: "HASURA_GRAPHQL_PATTERN_LENGTH_LIMIT",
  cost: "HASURA_GRAPHQL_COST_LIMIT",
  depth: "HASURA_GRAPHQL_DEFAULT_DEPTH_LIMIT",
  nodes: "HASURA_GRAPHQL_DEFAULT_NODE_LIMIT",
  batch: "HASURA_GRAPHQL_DEFAULT_BATCH_LIMIT",
} as const;

export const DEFAULT_STATEMENT_BOUNDS: StatementBounds = {
  rootFieldsPerStatement: 100,
  subqueriesPerStatement: 500,
  rootFieldsPerOperation: 1000,
  subqueriesPerOperation: 10_000,
  responseBytes: 64 * 1024 * 1024,
};

/** The operation's root fields, refused when there are more than an operation may have. */
export function checkRootFields(count: number, bounds: StatementBounds): void {
  const limit = bounds.rootFieldsPerOperation;
  if (count > limit)
    throw operationSizeLimitExceeded(limit, "root fields", { found: count, setting: LIMIT_SETTINGS.rootFieldsPerOperation });
}

/** A statement of `subqueries`, refused when one statement may not hold so many. */
export function checkStatement(subqueries: number, bounds: StatementBounds): void {
  const limit = bounds.subqueriesPerStatement;
  if (subqueries > limit) throw statementSizeLimitExceeded(limit, { found: subqueries, setting: LIMIT_SETTINGS.subqueriesPerStatement });
}

/** The refusal of an operation whose statements would hold more than `limit` subqueries in all. */
export function tooManySubqueries(found: number, bounds: StatementBounds) {
  return operationSizeLimitExceeded(bounds.subqueriesPerOperation, "subqueries", { found, setting: LIMIT_SETTINGS.subqueriesPerOperation });
}

/**
 * Root fields grouped into statements, in order: each group of at most `rootFieldsPerStatement`
 * fields and `subqueriesPerStatement` subqueries. `weights` are the subqueries of each field.
 */
export function groupIntoStatements(weights: readonly number[], bounds: StatementBounds): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let size = 0;
  weights.forEach((weight, i) => {
    checkStatement(weight, bounds);
    if (current.length > 0 && (current.length >= bounds.rootFieldsPerStatement || size + weight > bounds.subqueriesPerStatement)) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(i);
    size += weight;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * The bytes of JSON answered so far by one HTTP request (shared by the operations of a batch), so
 * that no request makes the engine hold more than `responseBytes` of answers.
 */
export class ResponseBudget {
  used = 0;

  constructor(readonly limit: number) {}

  /** What one more statement's answer may take. */
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Counts `bytes` more of answer; throws the size limit's error once past it. */
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) throw this.exceeded(this.used);
  }

  exceeded(found: number) {
    return responseSizeLimitExceeded(this.limit, { found, setting: LIMIT_SETTINGS.responseBytes });
  }
}

/**
 * API limits (https://hasura.io/docs/2.0/security/api-limits/; codes and wording of Hasura EE's
 * limits, server/src-lib/Hasura/RQL/Types/ApiLimit.hs for their settings), the server-wide time
 * limit (HASURA_GRAPHQL_TIME_LIMIT), and the engine's own bounds on what a request may make the
 * database do (statement size, estimated cost, answer size, pattern length), worded as Hasura
 * words its limits: `<what> limit of <n> exceeded`, code `<what>-limit-exceeded`.
 *
 * Every limit error but the rate limit's says in `internal` (shown as Hasura shows internal
 * details: to the admin role, and to every role in dev mode) what the request measured and which
 * setting raises the limit.
 */
import { HasuraError } from "./hasura-error.js";

/** What a refused request measured, and the setting (an environment variable, or a metadata key) that raises the limit. */
export interface LimitFound {
  found: number;
  setting: string;
}

function limitError(code: ConstructorParameters<typeof HasuraError>[0], message: string, found?: LimitFound, limit?: number) {
  const internal = found ? { found: found.found, limit, setting: found.setting } : undefined;
  return new HasuraError(code, message, "$", 400, internal ? { internal } : undefined);
}

export function batchLimitExceeded(limit: number, found?: LimitFound): HasuraError {
  return limitError("batch-limit-exceeded", `batch limit of ${limit} exceeded`, found, limit);
}

export function rateLimitExceeded(limit: number): HasuraError {
  return new HasuraError("rate-limit-exceeded", `rate limit of ${limit} exceeded`, "$");
}

export function depthLimitExceeded(limit: number, found?: LimitFound): HasuraError {
  return limitError("depth-limit-exceeded", `depth limit of ${limit} exceeded`, found, limit);
}

export function nodeLimitExceeded(limit: number, found?: LimitFound): HasuraError {
  return limitError("node-limit-exceeded", `node limit of ${limit} exceeded`, found, limit);
}

/** More root fields, or more subqueries in all, than one operation may have (for every role, admin included). */
export function operationSizeLimitExceeded(limit: number, unit: "root fields" | "subqueries", found: LimitFound): HasuraError {
  return limitError("operation-size-limit-exceeded", `operation size limit of ${limit} ${unit} exceeded`, found, limit);
}

/** One root field (or one mutation statement) needs more subqueries than one statement may hold. */
export function statementSizeLimitExceeded(limit: number, found: LimitFound): HasuraError {
  return limitError("statement-size-limit-exceeded", `statement size limit of ${limit} subqueries exceeded`, found, limit);
}

/** PostgreSQL's estimate of what the operation's statements cost is over the limit. */
export function costLimitExceeded(limit: number, found: LimitFound): HasuraError {
  return limitError("cost-limit-exceeded", `cost limit of ${limit} exceeded`, found, limit);
}

/** The answer (a batch's answers together) grew past the size limit, in bytes. */
export function responseSizeLimitExceeded(limit: number, found: LimitFound): HasuraError {
  return limitError("response-size-limit-exceeded", `response size limit of ${limit} bytes exceeded`, found, limit);
}

/** A WebSocket starting more operations at once than one socket may run (HASURA_GRAPHQL_WEBSOCKET_MAX_OPERATIONS). */
export function tooManyOperations(limit: number): HasuraError {
  return limitError(
    "operation-limit-exceeded",
    `operation limit of ${limit} per connection exceeded`,
    {
      found: limit + 1,
      setting: "HASURA_GRAPHQL_WEBSOCKET_MAX_OPERATIONS",
    },
    limit,
  );
}

/** A pattern operator's operand (`_like`, `_ilike`, `_similar`, `_regex` and their negations) longer than a role may send. */
export function patternLengthLimitExceeded(limit: number, found: LimitFound): HasuraError {
  return limitError("pattern-length-limit-exceeded", `pattern length limit of ${limit} exceeded`, found, limit);
}

/** The role's API time limit (`time-limit-exceeded`), or the server-wide one (`tenant-time-limit-exceeded`). */
export function timeLimitExceeded(seconds: number, fromApiLimit: boolean): HasuraError {
  return new HasuraError(fromApiLimit ? "time-limit-exceeded" : "tenant-time-limit-exceeded", `time limit of ${seconds}s exceeded`, "$");
}

/**
 * On PGlite, a regular expression of some 15,000 characters overflows PostgreSQL's regex compiler
 * inside WebAssembly: the statement answers nothing and the embedded database hangs from then on.
 * Such patterns are refused there (PostgreSQL serves them, within the time limit).
 */
export function patternTooLong(limit: number): HasuraError {
  return new HasuraError(
    "validation-failed",
    `regular expression patterns longer than ${limit} characters are not served on the embedded database (PGlite); use PostgreSQL`,
    "$",
  );
}

/**
 * API limits (https://hasura.io/docs/2.0/security/api-limits/; codes and wording of Hasura EE's
 * limits, server/src-lib/Hasura/RQL/Types/ApiLimit.hs for their settings) and the server-wide
 * time limit (HASURA_GRAPHQL_TIME_LIMIT).
 */
import { HasuraError } from "./hasura-error.js";

export function batchLimitExceeded(limit: number): HasuraError {
  return new HasuraError("batch-limit-exceeded", `batch limit of ${limit} exceeded`, "$");
}

export function rateLimitExceeded(limit: number): HasuraError {
  return new HasuraError("rate-limit-exceeded", `rate limit of ${limit} exceeded`, "$");
}

export function depthLimitExceeded(limit: number): HasuraError {
  return new HasuraError("depth-limit-exceeded", `depth limit of ${limit} exceeded`, "$");
}

export function nodeLimitExceeded(limit: number): HasuraError {
  return new HasuraError("node-limit-exceeded", `node limit of ${limit} exceeded`, "$");
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

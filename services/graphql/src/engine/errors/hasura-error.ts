/**
 * The error every part of the engine throws: Hasura's code (`Code` in Hasura's
 * server/src-lib/Hasura/Base/Error.hs), its message, the JSON path it points at and the HTTP
 * status the admin endpoints answer with. /v1/graphql always answers 200 with `{"errors": [...]}`.
 * The errors themselves are made by the factories of this folder, one per Hasura message.
 */
import { AppError } from "@platform/core";

export type HasuraCode =
  | "access-denied"
  | "already-exists"
  | "already-tracked"
  | "already-untracked"
  | "bad-request"
  | "batch-limit-exceeded"
  | "busy"
  | "conflict"
  | "cost-limit-exceeded"
  | "constraint-error"
  | "coercion-error"
  | "constraint-violation"
  | "data-exception"
  | "dependency-error"
  | "depth-limit-exceeded"
  | "invalid-configuration"
  | "invalid-headers"
  | "invalid-json"
  | "invalid-jwt"
  | "invalid-params"
  | "jwt-invalid-claims"
  | "jwt-missing-role-claims"
  | "metadata-warnings"
  | "node-limit-exceeded"
  | "not-exists"
  | "not-found"
  | "not-supported"
  | "operation-limit-exceeded"
  | "operation-size-limit-exceeded"
  | "parse-failed"
  | "pattern-length-limit-exceeded"
  | "permission-denied"
  | "permission-error"
  | "postgres-error"
  | "rate-limit-exceeded"
  | "remote-schema-conflicts"
  | "remote-schema-error"
  | "response-size-limit-exceeded"
  | "statement-size-limit-exceeded"
  | "tenant-time-limit-exceeded"
  | "time-limit-exceeded"
  | "unexpected"
  | "unexpected-payload"
  | "validation-failed";

export class HasuraError extends AppError {
  constructor(
    code: HasuraCode,
    message: string,
    /** JSON path in Hasura's `encodeJSONPath` form, e.g. `$.selectionSet.author.args`. */
    readonly path = "$",
    status = 400,
    options?: { cause?: unknown; internal?: unknown; extensions?: Record<string, unknown> },
  ) {
    super(status, code, message, options?.internal, { cause: options?.cause });
    this.name = "HasuraError";
    this.extensions = options?.extensions;
  }

  /**
   * The error's whole `extensions` object when something outside the engine gave it (an action
   * handler's error answer): Hasura then answers it in place of `{path, code}`.
   */
  readonly extensions: Record<string, unknown> | undefined;

  /**
   * Raised while the operation ran (a statement sent, an action's handler called) rather than
   * while it was parsed and planned: over a WebSocket Hasura sends such an error as the
   * operation's result, `{"data":null,"errors":[...]}` (server/src-lib/Hasura/GraphQL/Transport/WebSocket.hs).
   */
  duringExecution = false;

  get hasuraCode(): HasuraCode {
    return this.code as HasuraCode;
  }
}

/** `error` marked as raised while the operation ran (HasuraError.duringExecution); anything else as it is. */
export function duringExecution(error: unknown): unknown {
  if (error instanceof HasuraError) error.duringExecution = true;
  return error;
}

/** `$` + `.key` for plain keys, `['key']` otherwise, `[i]` for indices (Hasura's encodeJSONPath). */
export function jsonPath(segments: ReadonlyArray<string | number>): string {
  let out = "$";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += `.${s}`;
    else out += `['${s}']`;
  }
  return out;
}

/** The error re-anchored under `prefix` (a bulk step's `$.args[2].args` for a step's `$.args`); `internal` kept. */
export function underPath(error: HasuraError, prefix: string): HasuraError {
  return new HasuraError(error.hasuraCode, error.message, prefix + error.path.slice(1), error.status, {
    cause: error,
    internal: error.details,
  });
}

/**
 * A parse failure of a `/v1/query` command's arguments, at the path Hasura reports there: its
 * legacy query parser reads `args` without naming it, so `$.args.definition` is `$.definition`.
 */
export function legacyArgsPath(error: HasuraError): HasuraError {
  if (error.hasuraCode !== "parse-failed" || !/^\$\.args(?=$|[.[])/.test(error.path)) return error;
  return new HasuraError(error.hasuraCode, error.message, `$${error.path.slice("$.args".length)}`, error.status, {
    cause: error,
    internal: error.details,
  });
}

/** The error answered with another HTTP status (the admin endpoints answer auth failures with 401). */
export function withStatus(error: HasuraError, status: number): HasuraError {
  return new HasuraError(error.hasuraCode, error.message, error.path, status);
}

/** Another AppError (the HTTP framework's) in Hasura's shape: `not-found` for a 404, `bad-request` otherwise. */
export function fromAppError(error: AppError): HasuraError {
  return new HasuraError(error.status === 404 ? "not-found" : "bad-request", error.message, "$", error.status);
}

/**
 * Runs `work`, which compiles one argument's value; a validation error it raises without a place
 * of its own (`$`) is answered at that argument (`$.selectionSet.author.args.where`), as Hasura
 * points at it. Others (a session variable the role's permission lacks) keep Hasura's `$`.
 */
export function atArgument<T>(path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof HasuraError && error.path === "$" && error.hasuraCode === "validation-failed") throw underPath(error, path);
    throw error;
  }
}

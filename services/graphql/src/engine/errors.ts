/**
 * The GraphQL service's error catalogue: Hasura's codes (`Code` in Hasura's
 * server/src-lib/Hasura/Base/Error.hs) with the JSON path they point at and the HTTP status the
 * admin endpoints answer with. /v1/graphql always answers 200 with `{"errors": [...]}`.
 */
import { AppError } from "@platform/core";

export type HasuraCode =
  | "access-denied"
  | "already-exists"
  | "already-tracked"
  | "already-untracked"
  | "bad-request"
  | "batch-limit-exceeded"
  | "conflict"
  | "constraint-error"
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
  | "node-limit-exceeded"
  | "not-exists"
  | "not-found"
  | "not-supported"
  | "parse-failed"
  | "permission-denied"
  | "permission-error"
  | "postgres-error"
  | "rate-limit-exceeded"
  | "tenant-time-limit-exceeded"
  | "time-limit-exceeded"
  | "unexpected"
  | "validation-failed";

export class HasuraError extends AppError {
  constructor(
    code: HasuraCode,
    message: string,
    /** JSON path in Hasura's `encodeJSONPath` form, e.g. `$.selectionSet.author.args`. */
    readonly path = "$",
    status = 400,
    options?: { cause?: unknown; internal?: unknown },
  ) {
    super(status, code, message, options?.internal, { cause: options?.cause });
    this.name = "HasuraError";
  }

  get hasuraCode(): HasuraCode {
    return this.code as HasuraCode;
  }
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

/** Hasura's wording for a name the type does not have (single quotes around both, as its fixtures show). */
export function fieldNotFound(field: string, type: string, path = "$"): HasuraError {
  return new HasuraError("validation-failed", `field '${field}' not found in type: '${type}'`, path);
}

/**
 * Errors of remote schemas (https://hasura.io/docs/latest/remote-schemas/overview/): fetching a
 * remote's schema and calling it (server/src-lib/Hasura/GraphQL/RemoteServer.hs), its definition
 * (server/src-lib/Hasura/RemoteSchema/SchemaCache/Types.hs validateRemoteSchemaDef), the metadata
 * commands' consistency checks (buildSchemaCacheFor and withNewInconsistentObjsCheck in
 * server/src-lib/Hasura/RQL/DDL/Schema/Cache.hs), and a remote's own errors answered as Hasura
 * answers them (`{"data": null, "errors": [...]}`, server/src-lib/Hasura/GraphQL/Transport/HTTP.hs).
 */
import { type HasuraCode, HasuraError } from "./hasura-error.js";

const ARGS = "$.args";

/** A remote's schema or answer Hasura refuses (`remote-schema-error`); `path` is `$.args` in metadata commands. */
export function remoteSchemaError(message: string, path = "$", code: HasuraCode = "remote-schema-error"): HasuraError {
  return new HasuraError(code, message, path, 400);
}

/**
 * The remote could not be reached or did not answer in time. `label` is the `url` as written
 * (templates unresolved) or the name of `url_from_env`; `internal` is Hasura's http_exception.
 */
export function remoteHttpException(label: string, internal: unknown, path = "$"): HasuraError {
  return new HasuraError(
    "remote-schema-error",
    `HTTP exception occurred while sending the request to ${JSON.stringify(label)}`,
    path,
    400,
    {
      internal,
    },
  );
}

/** `url_from_env` (or a `{{VAR}}` of `url`) naming a variable that is not set. */
export function remoteUrlEnvMissing(name: string, path = "$"): HasuraError {
  return new HasuraError("invalid-params", `environment variable '${name}' not set`, path);
}

export function remoteUrlFromEnvInvalid(name: string, path = "$"): HasuraError {
  return new HasuraError("invalid-params", `not a valid URI in environment variable: ${name}`, path);
}

export function remoteUrlTemplateInvalid(template: string, path = "$"): HasuraError {
  return new HasuraError("invalid-params", `not a valid URI generated from the template: ${template}`, path);
}

/** A header's `value_from_env` that is not set (makeHeadersFromConf). */
export function remoteHeaderEnvMissing(name: string, path = "$"): HasuraError {
  return new HasuraError("not-found", `environment variable '${name}' not set`, path);
}

/** A field mapping of `customization.field_names` for a reserved name (`__typename`). */
export function reservedFieldCustomization(name: string): HasuraError {
  return new HasuraError("invalid-params", `attempt to customize reserved field name ${JSON.stringify(name)}`, ARGS);
}

/** The object a command added or changed is inconsistent: its reasons (each `Inconsistent object: ...`), joined. */
export function objectInconsistent(reasons: readonly string[], objects: unknown): HasuraError {
  return new HasuraError("invalid-configuration", reasons.join(", "), ARGS, 400, { internal: objects });
}

/** A command made other objects inconsistent (buildSchemaCacheFor). */
export function newInconsistentMetadata(objects: unknown): HasuraError {
  return new HasuraError("unexpected", "cannot continue due to new inconsistent metadata", ARGS, 400, { internal: objects });
}

/** A reload made objects inconsistent that were not (withNewInconsistentObjsCheck). */
export function newlyFoundInconsistentMetadata(objects: unknown): HasuraError {
  return new HasuraError("unexpected", "cannot continue due to newly found inconsistent metadata", ARGS, 500, { internal: objects });
}

/** track_table of a table whose name a remote schema's root field already has (checkConflictingNode). */
export function remoteNodeConflict(name: string): HasuraError {
  return new HasuraError("remote-schema-conflicts", `node ${name} already exists in current graphql schema`, ARGS);
}

/** A root field of a remote schema the model does not serve (a fault: the schema is built from the model). */
export function remoteSchemaMissing(name: string): HasuraError {
  return new HasuraError("unexpected", `remote schema ${name} missing`);
}

/** A subscription selecting a remote schema's field. */
export function remoteSubscriptionNotSupported(): HasuraError {
  return new HasuraError("not-supported", "subscription to remote server is not supported", "$");
}

/**
 * A remote's answer with `errors`: the request is answered `{"data": null, "errors": ...}`, the
 * remote's errors as it gave them (Hasura's GQExecError).
 */
export class RemoteErrors extends HasuraError {
  constructor(readonly errors: unknown[]) {
    super("unexpected", "the remote schema answered errors", "$", 200);
    this.name = "RemoteErrors";
  }

  /** The response body. */
  body(): string {
    return JSON.stringify({ data: null, errors: this.errors });
  }
}

export function remoteErrors(errors: unknown[]): RemoteErrors {
  return new RemoteErrors(errors);
}

/**
 * A remote relationship's call answered with `errors`: Hasura's remote join reports them under
 * `internal` (fetchRemoteJoinFields in server/src-lib/Hasura/GraphQL/Execute/RemoteJoin/RemoteServer.hs).
 */
export function remoteJoinErrors(errors: unknown): HasuraError {
  return new HasuraError("unexpected", "Errors from remote server", "$", 400, { internal: { errors } });
}

// --- Remote schema permissions (server/src-lib/Hasura/RemoteSchema/MetadataAPI/Permission.hs,
// server/src-lib/Hasura/RemoteSchema/SchemaCache/Permission.hs, and resolveRemoteVariable in
// server/src-lib/Hasura/GraphQL/Execute/Remote.hs).

export function remotePermissionsDisabled(): HasuraError {
  return new HasuraError(
    "constraint-violation",
    "remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine",
    ARGS,
  );
}

export function remotePermissionForAdmin(): HasuraError {
  return new HasuraError("constraint-violation", "cannot define permission for admin role", ARGS);
}

/** A role's schema that is not a subset of the remote's, with every reason found (showErrors). */
export function remotePermissionInvalid(reasons: readonly string[]): HasuraError {
  const because =
    reasons.length === 1 ? `because ${reasons[0]}` : `for the following reasons:\n${reasons.map((r) => ` • ${r}\n`).join("")}`;
  return new HasuraError("validation-failed", `validation for the given role-based schema failed ${because}`, ARGS);
}

/** A session variable an argument preset reads, missing from the request's session. */
export function presetSessionVariableMissing(variable: string): HasuraError {
  return new HasuraError("not-found", `${JSON.stringify(variable)} session variable expected, but not found`, "$");
}

/** A session variable's value that is not a value of the preset argument's type. */
export function presetSessionValueInvalid(value: string, what: string): HasuraError {
  return new HasuraError("coercion-error", `${JSON.stringify(value)} ${what}`, "$");
}

/**
 * Errors of REST connectors' request and response transforms
 * (https://hasura.io/docs/latest/actions/rest-connectors/), as Hasura answers them: a template
 * that does not parse is refused by the metadata API (validateTransforms in
 * server/src-lib/Hasura/RQL/DDL/Webhook/Transform/Validation.hs); a transform that fails while
 * an action runs is a 500 `unexpected` with every error of the failing part in `internal`
 * (callWebhook in server/src-lib/Hasura/GraphQL/Execute/Action.hs).
 */
import { HasuraError } from "./hasura-error.js";

export type TransformSide = "request" | "response";

export function transformValidationFailed(side: TransformSide, errors: unknown[]): HasuraError {
  return new HasuraError("validation-failed", `${side} transform validation failed`, "$", 400, { internal: errors });
}

export function transformFailed(side: TransformSide, errors: unknown[]): HasuraError {
  const message = side === "request" ? "Request Transformation Failed" : "Response Transformation Failed";
  return new HasuraError("unexpected", message, "$", 500, { internal: errors });
}

/** A transform's metadata of the wrong shape (`version` 3, an unknown body `action`, ...). */
export function transformShapeInvalid(message: string, path: string): HasuraError {
  return new HasuraError("parse-failed", message, path, 400);
}

/** test_webhook_transform: a `{{VAR}}` the sample `env` does not give (the engine's own environment is never read). */
export function sampleEnvMissing(name: string): HasuraError {
  return new HasuraError(
    "not-found",
    `Missing Env Var: ${name}. For security reasons when testing request options real environment variable values are not available. Please enter a mock value for ${name} in the Sample Env Variables list. See https://hasura.io/docs/latest/graphql/core/actions/rest-connectors/#action-transforms-sample-context`,
  );
}

/** test_webhook_transform: a `webhook_url: {from_env}` the sample `env` does not give. */
export function sampleWebhookEnvMissing(): HasuraError {
  return new HasuraError("not-found", "Missing Env Var");
}

/** The body of a GraphQL error response, as /v1/graphql and the WebSocket protocols send it. */
import type { HasuraError } from "./hasura-error.js";
import { RemoteErrors } from "./remote.js";

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

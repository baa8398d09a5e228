/**
 * The backend's one error catalogue. Hasura reads an action handler's non-2xx JSON answer
 * `{"message", "extensions"}` as the GraphQL error of that field
 * (https://hasura.io/docs/2.0/actions/action-handlers/#returning-an-error-response), so every
 * refusal is answered that way; unexpected failures get a generic message with an id.
 */
import { AppError } from "@platform/core";

export class BackendError extends AppError {}

export const errors = {
  /** A handler refused the call (MetaGame throws these into its error middleware). */
  refused: (message: string) => new BackendError(400, "action-refused", message),
  badRequest: (message: string) => new BackendError(400, "bad-request", message),
  /** The webhook's answer to a token it cannot verify: 401 with no body, as Hasura expects. */
  unauthorized: (message: string) => new BackendError(401, "unauthorized", message),
  forbidden: (message: string) => new BackendError(403, "forbidden", message),
  notFound: (message: string) => new BackendError(404, "not-found", message),
  /** The engine answered the handler's own GraphQL call with errors. */
  engine: (message: string) => new BackendError(502, "engine-error", message),
  /** A third-party service a handler depends on (the auth service's keys, JSON-RPC, Discord, SourceCred) failed or answered nonsense. */
  upstream: (message: string) => new BackendError(502, "upstream-error", message),
};

/**
 * Errors of calling an action's handler, as Hasura answers them (callWebhook in
 * server/src-lib/Hasura/GraphQL/Execute/Action.hs): an answer that does not fit the output type
 * is `unexpected` with the exchange in `internal`; a handler's 4xx answer is its own error
 * (`message`, `code` or `unexpected`, and its `extensions` in place of the engine's); a
 * handler that cannot be reached, answers no JSON, or answers another status is a 500.
 */
import { type HasuraCode, HasuraError } from "./hasura-error.js";

/** The request and response of a handler call, reported in `extensions.internal`. */
export type ActionExchange = Record<string, unknown>;

export function actionUnexpectedResponse(message: string, exchange: ActionExchange): HasuraError {
  return new HasuraError("unexpected", message, "$", 400, { internal: { error: "unexpected response", ...exchange } });
}

export function actionHttpException(exchange: ActionExchange): HasuraError {
  return new HasuraError("unexpected", "http exception when calling webhook", "$", 500, { internal: exchange });
}

export function actionInvalidJson(exchange: ActionExchange): HasuraError {
  return new HasuraError("unexpected", "not a valid json response from webhook", "$", 500, { internal: exchange });
}

export function actionUnexpectedStatus(exchange: ActionExchange): HasuraError {
  return new HasuraError("unexpected", "internal error", "$", 500, { internal: exchange });
}

/** A handler's error answer: its `code` is the error's code (any string a handler chooses), its `extensions` answered whole. */
export function actionHandlerError(
  message: string,
  code: string | undefined,
  extensions: Record<string, unknown> | undefined,
): HasuraError {
  return new HasuraError((code ?? "unexpected") as HasuraCode, message, "$", 400, extensions ? { extensions } : undefined);
}

/** A handler URL or header naming an environment variable that is not set. */
export function actionEnvMissing(name: string): HasuraError {
  return new HasuraError("not-found", `environment variable '${name}' not set`);
}

/**
 * What Hasura POSTs to an action handler (https://hasura.io/docs/2.0/actions/action-handlers/):
 * `{action: {name}, input, session_variables, request_query}`, and the route schemas that check it.
 * The engine has already checked `input` against the action's GraphQL types; the schemas only
 * turn a malformed direct call into a 400 in the backend's error shape.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { EngineRequestError } from "../engine-client.js";
import { BackendError, errors } from "../errors.js";
import { type SessionVariables, sessionVariables } from "../session.js";

export interface ActionPayload<I> {
  action?: { name?: string };
  input: I;
  session_variables: Record<string, string>;
  request_query?: string;
}

export const nullableString = { type: ["string", "null"] } as const;
export const nullableInteger = { type: ["integer", "null"] } as const;
export const nullableBoolean = { type: ["boolean", "null"] } as const;

/** The body schema of an action whose `input` has these properties. */
export function actionBody(input: Record<string, unknown>, required: string[] = []) {
  return {
    body: {
      type: "object",
      required: ["input", "session_variables"],
      properties: {
        action: { type: "object" },
        input: { type: "object", required, properties: input },
        session_variables: { type: "object" },
        request_query: { type: "string" },
      },
    },
  };
}

export const sessionOf = (payload: ActionPayload<unknown>): SessionVariables => sessionVariables(payload.session_variables);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Failure {
  success: false;
  error: string;
}

/**
 * MetaGame's quest and guild handlers catch every failure and answer HTTP 200
 * `{success: false, error: <message>}`: a client sees no GraphQL error, only `success: false`.
 * Refusals (BackendError) and the engine's own errors keep their message; anything unexpected
 * is logged with an id, which is all the answer carries.
 */
export async function successOrFailure<T>(log: FastifyBaseLogger, work: () => Promise<T>): Promise<T | Failure> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackendError || error instanceof EngineRequestError) return { success: false, error: error.message };
    const id = randomUUID();
    log.error({ err: error, errorId: id }, "action failed unexpectedly");
    return { success: false, error: `internal error (id ${id})` };
  }
}

/**
 * The caller's player id. The auth webhook always sets one for role player; a session without a
 * valid one (an admin acting as player without it) is refused before any rule MetaGame documents.
 */
export function playerIdOf(session: SessionVariables): string {
  const id = session["x-hasura-user-id"];
  if (!id || !UUID.test(id)) throw errors.refused("The session has no valid X-Hasura-User-Id.");
  return id;
}

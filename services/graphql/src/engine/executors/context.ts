/**
 * What every executor is given for one request, built once by the Engine: the database, the
 * model, how SQL is compiled for the session's role, and what the request brings beyond its
 * operation (its signal, its headers, where handlers' cookies go). Executors take everything
 * from here and the operation; they never call back into the Engine.
 */
import type { Database } from "@platform/core";
import { CompileContext, type CompileOptions } from "../compiler/context.js";
import type { Model } from "../model/types.js";
import type { CheckedOperation } from "../request/operation.js";
import type { ActionCall } from "./action.js";
import type { RemoteCallContext } from "./remote.js";

export interface Execution {
  db: Database;
  model: Model;
  /** How this request's SQL is compiled: the engine's options and the bounds for the session's role. */
  compileOptions: CompileOptions;
  /** Cancels the request's statements and calls (client gone, time limit passed). */
  signal: AbortSignal | undefined;
  /** The client's request headers, lower-case names (forwarded to handlers that ask for them). */
  headers: Record<string, string>;
  /** Where `{{VAR}}` templates and `value_from_env` are read. */
  env: Record<string, string | undefined>;
  /** Where handlers' and remotes' Set-Cookie headers are gathered for the client's response. */
  setCookies: string[];
}

/** A compile context for the operation's session; `planning` compiles a reusable plan (session variables as slots). */
export function compileContext(operation: CheckedOperation, execution: Execution, planning = false): CompileContext {
  return new CompileContext(execution.model, operation.session, execution.compileOptions, planning);
}

/** What an action handler or a remote schema call takes from the request. */
export function callContext(operation: CheckedOperation, execution: Execution, compile: CompileContext): ActionCall & RemoteCallContext {
  return {
    db: execution.db,
    compile,
    query: operation.query,
    clientHeaders: execution.headers,
    env: execution.env,
    signal: execution.signal,
    setCookies: execution.setCookies,
    variables: operation.variables,
  };
}

/**
 * What every executor is given for one request, built once by the Engine: the database, the
 * model, how SQL is compiled for the session's role, and what the request brings beyond its
 * operation (its signal, its headers, where handlers' cookies go). Executors take everything
 * from here and the operation; they never call back into the Engine.
 */
import type { Database } from "@platform/core";
import { CompileContext, type CompileOptions } from "../compiler/context.js";
import type { StatementBounds } from "../limits/statements.js";
import type { Model } from "../model/types.js";
import type { CheckedOperation } from "../request/operation.js";
import type { ActionCall } from "./action.js";
import type { RemoteCallContext } from "./remote.js";
import type { RunBounds } from "./statement.js";

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
  /** How large statements may be (every role). */
  bounds: StatementBounds;
  /** The request's response budget and the role's cost limit. */
  run: RunBounds;
}

/**
 * A compile context for the operation's session. `planning` compiles a reusable plan (session
 * variables as slots); `bounded` stops compiling past the subqueries an operation's statements may
 * hold in all (a query's; a mutation's statements are bounded one by one, mutation-size.ts).
 */
export function compileContext(
  operation: CheckedOperation,
  execution: Execution,
  options: { planning?: boolean; bounded?: boolean } = {},
): CompileContext {
  const compileOptions = options.bounded
    ? { ...execution.compileOptions, maxSubqueries: execution.bounds.subqueriesPerOperation }
    : execution.compileOptions;
  return new CompileContext(execution.model, operation.session, compileOptions, options.planning === true);
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

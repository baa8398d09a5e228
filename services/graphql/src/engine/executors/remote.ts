/**
 * The remote schema executor: each remote root field selected is one POST to its remote
 * (Hasura sends one request per root field, buildExecStepRemote in
 * server/src-lib/Hasura/GraphQL/Execute/Remote.hs): an operation of the request's kind and name,
 * the variables the field uses, the field in the remote's own names. The answer's `errors` are
 * the request's (`{"data": null, "errors": [...]}`, kept as the remote gave them, `path`
 * included); otherwise the field's value is taken from `data`, its `__typename`s given our type
 * names, and spliced into the response (extractFieldFromResponse in
 * server/src-lib/Hasura/GraphQL/Transport/HTTP.hs). The remote's Set-Cookie headers are passed on.
 */
import { remoteErrors, remoteSchemaError } from "../errors/index.js";
import { jsonText } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import type { RemoteCall, RemoteNode, TypenameTree } from "../plan/types.js";
import { postToRemote } from "../remote/http.js";
import { remoteRequest } from "../remote/request.js";
import { withSessionPresets } from "../remote/session-presets.js";
import { customTypeName, type RemoteCustomizer } from "../remote/types.js";
import type { Session } from "../request/session.js";

/** What a remote call takes from the request (an action call's context has all of it). */
export interface RemoteCallContext {
  compile: { session: Session };
  /** The client's request headers, lower-case names (forwarded when the remote schema says so). */
  clientHeaders: Record<string, string>;
  /** Where `{{VAR}}` templates, `url_from_env` and `value_from_env` are read. */
  env: Record<string, string | undefined>;
  signal?: AbortSignal | undefined;
  /** Where the remote's Set-Cookie headers are gathered for the client's response. */
  setCookies?: string[] | undefined;
  /** The request's variable values (remote joins of a cached plan send the ones they use). */
  variables?: Readonly<Record<string, unknown>> | undefined;
}

/** `__typename` answers given our type names (the remote answers with its own). */
export function renameTypenames(value: unknown, tree: TypenameTree, customizer: RemoteCustomizer): unknown {
  if (Array.isArray(value)) return value.map((v) => renameTypenames(v, tree, customizer));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  for (const [key, node] of tree) {
    const v = object[key];
    if (node === "typename") {
      if (typeof v === "string") object[key] = customTypeName(customizer, v);
    } else if (v !== undefined) object[key] = renameTypenames(v, node, customizer);
  }
  return object;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** One call: the value the remote answers for the field. */
async function callRemote(node: RemoteNode, planned: RemoteCall, context: RemoteCallContext): Promise<unknown> {
  const session = context.compile.session;
  const call = withSessionPresets(planned, session.variables);
  const caller = { sessionVariables: { ...session.variables, "x-hasura-role": session.role }, clientHeaders: context.clientHeaders };
  const response = await postToRemote(node.remote.definition, context.env, caller, remoteRequest(node.operation, call), context.signal);
  for (const [name, value] of response.headers) if (name.toLowerCase() === "set-cookie") context.setCookies?.push(value);
  let answer: unknown;
  try {
    answer = parseJsonBody(response.text);
  } catch (error) {
    throw remoteSchemaError(`Error in $: ${(error as Error).message}`);
  }
  if (!isObject(answer)) throw remoteSchemaError("expecting an object for the remote's response");
  if ("errors" in answer) {
    if (!Array.isArray(answer.errors)) throw remoteSchemaError('Invalid "errors" field in response from remote');
    throw remoteErrors(answer.errors);
  }
  if (!("data" in answer)) throw remoteSchemaError('Missing "data" field in response from remote');
  const data = answer.data;
  if (!isObject(data)) throw remoteSchemaError("expecting an object for the remote's data");
  if (!(call.key in data)) throw remoteSchemaError(`expecting key ${call.key}`);
  const typenames = call.typenames.get(call.key);
  return typenames instanceof Map ? renameTypenames(data[call.key], typenames, node.remote.customizer) : data[call.key];
}

/** A remote root field's JSON text; under a namespace, its fields' calls (a mutation's one after another). */
export async function runRemote(node: RemoteNode, context: RemoteCallContext): Promise<string> {
  const value = (f: RemoteNode["fields"][number]) => (f.kind === "typename" ? Promise.resolve(f.typeName) : callRemote(node, f, context));
  if (!node.namespaced) return jsonText(await value(node.fields[0] as RemoteCall));
  const values: unknown[] = [];
  if (node.operation === "mutation") for (const f of node.fields) values.push(await value(f));
  else values.push(...(await Promise.all(node.fields.map(value))));
  return jsonText(Object.fromEntries(node.fields.map((f, i) => [f.key, values[i]])));
}

/**
 * The action executor: a synchronous action's handler is POSTed Hasura's payload
 * (https://hasura.io/docs/latest/actions/action-handlers/: `action.name`, `input`,
 * `session_variables`, `request_query`) with the configured headers (and the client's, when
 * `forward_client_headers`), its answer checked against the output type as Hasura checks it
 * (validateResponse in server/src-lib/Hasura/GraphQL/Execute/Action.hs) and shaped to the
 * selection; relationships to tables are read in one statement built by compiler/action.ts.
 */
import type { Database } from "@platform/core";
import { type RelationshipBatch, type RelationshipField, relationshipsStatement } from "../compiler/action.js";
import type { CompileContext } from "../compiler/context.js";
import {
  type ActionExchange,
  actionEnvMissing,
  actionHandlerError,
  actionHttpException,
  actionInvalidJson,
  actionUnexpectedResponse,
  actionUnexpectedStatus,
  duringExecution,
  transformFailed,
} from "../errors/index.js";
import { statementFailure } from "../errors/postgres.js";
import { JsonNumber, jsonText, RawJson } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import type { ActionModel, CustomTypesModel, HeaderModel, TypeRef } from "../model/types.js";
import type { ActionNode, OutputField } from "../plan/types.js";
import { resolveTemplate } from "../remote/env-template.js";
import { forwardableHeaders } from "../request/client-headers.js";
import {
  type HttpRequest,
  jsonOrNull,
  requestContext,
  TransformFailure,
  transformRequest,
  transformResponse,
} from "../transforms/apply.js";
import { PostFailure, type PostResult, postJson, postRequest, sendRequest } from "./http-post.js";

/** What an action call needs beyond its plan node. */
export interface ActionCall {
  db: Database;
  /** The caller's role and session, for relationships' permissions. */
  compile: CompileContext;
  /** The request's query text (`request_query`). */
  query: string;
  /** The client's request headers, lower-cased names (forwarded when the action says so). */
  clientHeaders: Record<string, string>;
  /** Where `{{VAR}}` templates and `value_from_env` are read. */
  env: Record<string, string | undefined>;
  signal?: AbortSignal | undefined;
  /** Where a handler's Set-Cookie headers are gathered for the client's response. */
  setCookies?: string[] | undefined;
}

const BUILT_IN_SCALARS = new Set(["Int", "Float", "String", "Boolean", "ID"]);

/** What every handler is sent when its action neither configures headers nor forwards the client's. */
const JSON_ONLY: Readonly<Record<string, string>> = Object.freeze({ "Content-Type": "application/json" });

/** The headers sent to the handler: configured ones win over the client's, as in Hasura. */
function handlerHeaders(action: ActionModel, call: HandlerCall): Record<string, string> {
  const forwarded = action.forwardClientHeaders ? call.forwarded : [];
  if (forwarded.length === 0 && action.headers.length === 0) return JSON_ONLY;
  const byName = new Map<string, [string, string]>();
  for (const [name, value] of forwarded) byName.set(name.toLowerCase(), [name, value]);
  byName.set("content-type", ["Content-Type", "application/json"]);
  for (const header of action.headers) byName.set(header.name.toLowerCase(), [header.name, headerValue(header, call.env)]);
  return Object.fromEntries(byName.values());
}

/** The headers as an error's `internal` reports them: configured ones as configured, then the forwarded ones. */
function reportedHeaders(action: ActionModel, call: HandlerCall): unknown[] {
  const forwarded = action.forwardClientHeaders ? call.forwarded : [];
  return [
    ...action.headers.map((h) =>
      h.valueFromEnv !== undefined ? { name: h.name, value_from_env: h.valueFromEnv } : { name: h.name, value: h.value },
    ),
    ...forwarded.map(([name, value]) => ({ name, value })),
  ];
}

function headerValue(header: HeaderModel, env: ActionCall["env"]): string {
  if (header.valueFromEnv === undefined) return header.value ?? "";
  const value = env[header.valueFromEnv];
  if (value === undefined) throw actionEnvMissing(header.valueFromEnv);
  return value;
}

/** One call of a handler, from a request (synchronous) or from the action log (asynchronous). */
export interface HandlerCall {
  action: ActionModel;
  input: unknown;
  /** The session as the payload's `session_variables` (with `x-hasura-role`). */
  sessionVariables: Record<string, string>;
  /** The request's query text; absent for an asynchronous call, as Hasura sends none then. */
  query?: string | undefined;
  /** Client headers that may be forwarded (forwardableHeaders). */
  forwarded: Array<[string, string]>;
  types: CustomTypesModel;
  env: ActionCall["env"];
  signal?: AbortSignal | undefined;
  setCookies?: string[] | undefined;
  /** The request a request transform made of this call (errors report it as `transformed_request`). */
  transformed?: HttpRequest | undefined;
}

/**
 * Hasura's payload as JSON text, printed by parts: only `input` may hold JsonNumbers; the
 * session's values and the query are strings, which JSON.stringify prints as jsonText would.
 */
function payloadText(call: HandlerCall): string {
  const query = call.query !== undefined ? `,"request_query":${JSON.stringify(call.query)}` : "";
  return `{"action":{"name":${JSON.stringify(call.action.name)}},"input":${jsonText(call.input)},"session_variables":${JSON.stringify(call.sessionVariables)}${query}}`;
}

/** A transformed request as an error's `internal` reports it (Hasura's Transformable request JSON). */
function reportedTransformed(sent: HttpRequest, timeoutSeconds: number) {
  const at = sent.url.indexOf("?");
  return {
    url: sent.url,
    method: sent.method,
    headers: sent.headers,
    body: sent.body,
    query_string: at < 0 ? "" : sent.url.slice(at),
    response_timeout: String(timeoutSeconds * 1_000_000),
  };
}

/** The request as an error's `internal` reports it (built only when a call fails). */
function reportedRequest(call: HandlerCall) {
  const payload = {
    action: { name: call.action.name },
    input: call.input,
    session_variables: call.sessionVariables,
    ...(call.query !== undefined ? { request_query: call.query } : {}),
  };
  const transformed = call.transformed ? reportedTransformed(call.transformed, call.action.timeoutSeconds) : null;
  return { body: payload, url: call.action.handler, headers: reportedHeaders(call.action, call), transformed_request: transformed };
}

/** The handler's response as an error's `internal` reports it. */
function reportedResponse(response: PostResult, body: unknown) {
  return { status: response.status, body, headers: response.headers.map(([name, value]) => ({ name, value })) };
}

/** The exchange an error about the handler's (parsed) answer reports. */
function exchangeOf(call: HandlerCall, response: PostResult, value: unknown): ActionExchange {
  return { response: reportedResponse(response, value), request: reportedRequest(call) };
}

/** The request a request transform made of the call, or undefined without one; throws Hasura's transform error. */
function transformedRequest(call: HandlerCall, url: string, headers: Record<string, string>, body: string) {
  const transform = call.action.transforms.request;
  if (!transform) return undefined;
  const original = postRequest(url, headers, body);
  try {
    return transformRequest(transform, original, requestContext(original, jsonOrNull(body), call.sessionVariables));
  } catch (error) {
    if (error instanceof TransformFailure) throw transformFailed("request", error.errors);
    throw error;
  }
}

/** The handler's answer after the action's response transform (Hasura applies it to every answer, before its status is read). */
function transformedAnswer(call: HandlerCall, response: PostResult, sent: HttpRequest | undefined): PostResult {
  const transform = call.action.transforms.response;
  if (!transform) return response;
  const request = sent ? requestContext(sent, jsonOrNull(sent.body), call.sessionVariables) : null;
  try {
    return { ...response, text: jsonText(transformResponse(transform, response, call.sessionVariables, request)) };
  } catch (error) {
    if (error instanceof TransformFailure) throw transformFailed("response", error.errors);
    throw error;
  }
}

/** Posts Hasura's payload; resolves to the handler's JSON answer, checked against the action's output type. */
export async function callHandler(untransformed: HandlerCall): Promise<unknown> {
  const { action } = untransformed;
  let call = untransformed;
  const headers = handlerHeaders(action, call);
  // Most handler URLs hold no {{VAR}}: no template to resolve on each call.
  const url = action.handler.includes("{{") ? resolveTemplate(action.handler, call.env, actionEnvMissing) : action.handler;
  const body = payloadText(call);
  const sent = transformedRequest(call, url, headers, body);
  // Every error about this call reports the request as the transform made it.
  if (sent) call = { ...call, transformed: sent };
  let response: PostResult;
  try {
    const options = { timeoutMs: action.timeoutSeconds * 1000, signal: call.signal };
    response = sent ? await sendRequest(sent, options) : await postJson(url, headers, body, options);
  } catch (error) {
    if (!(error instanceof PostFailure)) throw error;
    throw actionHttpException({ error: { type: "http_exception", message: error.message }, request: reportedRequest(call) });
  }
  response = transformedAnswer(call, response, sent);
  const { text } = response;
  // Hasura passes a handler's cookies on to the client (mkSetCookieHeaders).
  for (const [name, value] of response.headers) if (name.toLowerCase() === "set-cookie") call.setCookies?.push(value);
  let value: unknown;
  try {
    value = parseJsonBody(text);
  } catch (error) {
    throw actionInvalidJson({
      error: `invalid json: ${(error as Error).message}`,
      request: reportedRequest(call),
      response: reportedResponse(response, text),
    });
  }
  if (response.status >= 200 && response.status < 300) {
    validateResponse(value, call, response);
    return value;
  }
  if (response.status >= 400 && response.status < 500) throw handlerError(value, exchangeOf(call, response, value));
  throw actionUnexpectedStatus({
    error: `expecting 2xx or 4xx status code, but found ${response.status}`,
    request: reportedRequest(call),
    response: reportedResponse(response, value),
  });
}

/** A handler's 4xx answer, `{message, code?, extensions?}`, as the error it reports. */
function handlerError(value: unknown, exchange: ActionExchange) {
  const body = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (!body || typeof body.message !== "string")
    throw actionUnexpectedResponse(body ? 'the key "message" was not present' : "expected an object for the error response", exchange);
  const code = typeof body.code === "string" ? body.code : undefined;
  const extensions =
    body.extensions !== null && typeof body.extensions === "object" && !Array.isArray(body.extensions)
      ? (body.extensions as Record<string, unknown>)
      : undefined;
  return actionHandlerError(body.message, code, extensions);
}

const nameOf = (type: TypeRef): string => (type.kind === "named" ? type.name : nameOf(type.of));

/** What checking one answer needs: the custom types, the output object (if any), and the call, for an error's report. */
interface Check {
  types: CustomTypesModel;
  object: ReturnType<CustomTypesModel["objects"]["get"]>;
  call: HandlerCall;
  response: PostResult;
  value: unknown;
}

function isUncheckedScalar(type: TypeRef, c: Check): boolean {
  if (type.kind !== "named") return false;
  const name = type.name;
  const { types } = c;
  const pgScalar = !BUILT_IN_SCALARS.has(name) && !types.objects.has(name) && !types.scalars.has(name) && !types.enums.has(name);
  return pgScalar || (!c.object && !BUILT_IN_SCALARS.has(name));
}

function unexpected(message: string, c: Check): never {
  throw actionUnexpectedResponse(message, exchangeOf(c.call, c.response, c.value));
}

function checkValue(v: unknown, type: TypeRef, c: Check): void {
  if (isUncheckedScalar(type, c)) return;
  if (v === null || v === undefined) {
    if (!type.nullable) unexpected("got null for the action webhook response", c);
    return;
  }
  if (type.kind === "list") {
    if (!Array.isArray(v)) unexpected("expecting array for the action webhook response", c);
    for (const item of v as unknown[]) checkValue(item, type.of, c);
    return;
  }
  const name = type.name;
  if (typeof v === "number" || v instanceof JsonNumber) {
    if (name !== "Int" && name !== "Float") unexpected(`got scalar String for the action webhook response, expecting ${name}`, c);
  } else if (typeof v === "boolean") {
    if (name !== "Boolean") unexpected(`got scalar Boolean for the action webhook response, expecting ${name}`, c);
  } else if (typeof v === "string") {
    if (name !== "String" && name !== "ID") unexpected(`got scalar String for the action webhook response, expecting ${name}`, c);
  } else if (Array.isArray(v)) unexpected(`got array for the action webhook response, expecting ${name}`, c);
  else {
    if (BUILT_IN_SCALARS.has(name)) unexpected(`got object for the action webhook response, expecting ${name}`, c);
    const fields = v as Record<string, unknown>;
    for (const field of c.object?.fields ?? []) {
      if (field.ref.nullable) continue;
      if (!(field.name in fields)) unexpected(`field ${JSON.stringify(field.name)} expected in webhook response, but not found`, c);
      if (fields[field.name] === null) unexpected(`expecting not null value for field ${JSON.stringify(field.name)}`, c);
    }
  }
}

/**
 * Hasura's check of a handler's answer: values of the output type's shape, scalars of GraphQL's
 * own types by JSON kind (its messages say "scalar String" for a number, as Hasura's do), the
 * output object's non-null fields present and not null. Postgres and custom scalars are not checked.
 */
function validateResponse(value: unknown, call: HandlerCall, response: PostResult): void {
  const { types, action } = call;
  checkValue(value, action.output, { types, object: types.objects.get(nameOf(action.output)), call, response, value });
}

/** Whether the output type names a scalar Hasura passes through unshaped (a custom or Postgres scalar). */
function passedThrough(action: ActionModel, types: CustomTypesModel): boolean {
  const name = nameOf(action.output);
  return !BUILT_IN_SCALARS.has(name) && !types.objects.has(name);
}

/** The answer shaped to the selection; relationship fields wait in `pending` for their SQL. */
function shape(
  value: unknown,
  fields: OutputField[] | null,
  pending: Map<RelationshipField, Array<{ target: Record<string, unknown>; key: string; object: unknown }>>,
): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => shape(v, fields, pending));
  if (fields === null || typeof value !== "object" || value instanceof JsonNumber) return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.kind === "typename") out[f.key] = f.typeName;
    else if (f.kind === "output_field") {
      if (f.fields === null) out[f.key] = object[f.field] ?? null;
      else {
        // A nested object the answer leaves out (or gives as a scalar) is left out, as Hasura's mkValue does.
        const nested = object[f.field];
        if (nested !== undefined && (nested === null || typeof nested === "object")) out[f.key] = shape(nested, f.fields, pending);
      }
    } else {
      out[f.key] = null;
      const list = pending.get(f) ?? [];
      list.push({ target: out, key: f.key, object });
      pending.set(f, list);
    }
  }
  return out;
}

/** The handler's checked answer as the JSON text of the selection (`fields`), relationships read from the database. */
export async function outputJson(action: ActionModel, value: unknown, fields: OutputField[] | null, call: ActionCall): Promise<string> {
  if (passedThrough(action, call.compile.model.customTypes)) return jsonText(value);
  const pending = new Map<RelationshipField, Array<{ target: Record<string, unknown>; key: string; object: unknown }>>();
  const shaped = shape(value, fields, pending);
  if (pending.size > 0) await readRelationships(call, pending);
  return jsonText(shaped);
}

/** One synchronous action field: the JSON text of its value. */
export async function runAction(node: ActionNode, call: ActionCall): Promise<string> {
  const session = call.compile.session;
  const value = await callHandler({
    action: node.action,
    input: node.input,
    sessionVariables: { ...session.variables, "x-hasura-role": session.role },
    query: call.query,
    // Only an action that forwards them reads the client's headers.
    forwarded: node.action.forwardClientHeaders ? forwardableHeaders(call.clientHeaders) : [],
    types: call.compile.model.customTypes,
    env: call.env,
    signal: call.signal,
    setCookies: call.setCookies,
  }).catch((error: unknown) => {
    throw duringExecution(error);
  });
  return outputJson(node.action, value, node.fields, call);
}

async function readRelationships(
  call: ActionCall,
  pending: Map<RelationshipField, Array<{ target: Record<string, unknown>; key: string; object: unknown }>>,
): Promise<void> {
  const entries = [...pending.entries()];
  const batches: RelationshipBatch[] = entries.map(([field, places]) => ({ field, objects: jsonText(places.map((p) => p.object)) }));
  const statement = relationshipsStatement(call.compile, batches);
  const { rows } = await call.db
    .query<{ n: number; ord: string | number; json: string | null }>(statement, { signal: call.signal })
    .catch((error: unknown) => {
      throw statementFailure(error, call.signal);
    });
  for (const row of rows) {
    const place = entries[row.n]?.[1][Number(row.ord) - 1];
    if (place) place.target[place.key] = row.json === null ? null : new RawJson(row.json);
  }
}

/**
 * Applying request and response transforms to an HTTP exchange, as Hasura does
 * (server/src-lib/Hasura/RQL/DDL/Webhook/Transform.hs and its Transform/*.hs; context described
 * at https://hasura.io/docs/latest/api-reference/kriti-templating/ and
 * https://hasura.io/docs/latest/actions/rest-connectors/):
 *
 * - A request transform's templates see the untransformed request: `$body` (its JSON),
 *   `$base_url` (the handler's URL), `$session_variables` (or null) and `$query_params` (the
 *   URL's parameters as `[key, value]` pairs), plus `getSessionVariable(name)`.
 * - The parts are evaluated in Hasura's order (method, url, body, query parameters, headers); the
 *   first part that fails stops the transform with all of that part's errors.
 * - The url replaces the handler's URL except for its query string: the query is the rendered
 *   `query_params` when given (a parameter whose key or value renders as `null` is left out),
 *   else the handler URL's own. No escaping is added (templates call `escapeUri`).
 * - Headers named in `remove_headers` are dropped (any case), then `add_headers` are appended;
 *   Content-Type is never changed on its own, as in Hasura.
 * - A response transform sees `$body` (the answer's JSON or null), `$response.status`,
 *   `$session_variables` and `$request` (the request context, or null without a request transform).
 */

import type { HttpRequest } from "../executors/http-post.js";
import { JsonNumber, jsonText } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import type { BodyTransform, RequestTransform, ResponseTransform, Template } from "./config.js";
import { escapeUri, type Json, KritiError, type KritiFunction, KritiFunctionError } from "./kriti/index.js";

export type { HttpRequest } from "../executors/http-post.js";

/** What a request transform's templates see. */
export interface RequestContext {
  body: Json;
  base_url: string;
  session_variables: Record<string, string> | null;
  query_params: Array<[string, string | null]>;
}

/** A transform that failed: the errors of the part that failed, as Hasura reports them. */
export class TransformFailure extends Error {
  constructor(readonly errors: Json[]) {
    super("transform failed");
    this.name = "TransformFailure";
  }
}

const failure = (message: string): Json => ({ error_code: "TransformationError", message });

function sessionFunctions(session: Record<string, string> | null): Record<string, KritiFunction> {
  return {
    getSessionVariable: (name) => {
      if (name === null) return null;
      if (typeof name !== "string") throw new KritiFunctionError("Session variable name should be a string");
      const key = name.toLowerCase();
      const found = session ? Object.entries(session).find(([k]) => k.toLowerCase() === key) : undefined;
      if (!found) throw new KritiFunctionError(`Session variable "${name}" not found`);
      return found[1];
    },
  };
}

/** Renders one template, or returns its error as Hasura serialises it. */
function render(
  template: Template,
  bindings: Record<string, Json>,
  functions: Record<string, KritiFunction>,
): { value: Json } | { error: Json } {
  if (!template.ok) return { error: template.error.toJSON() };
  try {
    return { value: template.kriti.render(bindings, functions) };
  } catch (error) {
    if (error instanceof KritiError) return { error: error.toJSON() };
    throw error;
  }
}

/** Renders a list of string templates, gathering every error (Hasura's Validation) before failing. */
function renderAll(templates: Template[], bindings: Record<string, Json>, functions: Record<string, KritiFunction>): string[] {
  const errors: Json[] = [];
  const values = templates.map((t) => {
    const out = render(t, bindings, functions);
    if ("error" in out) errors.push(out.error);
    else if (typeof out.value === "string") return out.value;
    else if (typeof out.value === "number" || typeof out.value === "boolean" || out.value instanceof JsonNumber) return String(out.value);
    else errors.push({ ...(failure("Template must produce a String, Number, or Boolean value") as object), value: out.value });
    return "";
  });
  if (errors.length > 0) throw new TransformFailure(errors);
  return values;
}

/** A query string component, percent-encoded as http-types' `urlEncode True` does (space as `+`). */
function queryEncode(value: string): string {
  return escapeUri(value).replace(/%20/g, "+");
}

function queryDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
}

/** `?a=1&b` read into pairs, as http-types' parseQuery does (`&` or `;` between pairs). */
export function parseQuery(query: string): Array<[string, string | null]> {
  return query
    .replace(/^\?/, "")
    .split(/[&;]/)
    .filter((part) => part !== "")
    .map((part) => {
      const at = part.indexOf("=");
      return at < 0 ? [queryDecode(part), null] : [queryDecode(part.slice(0, at)), queryDecode(part.slice(at + 1))];
    });
}

function renderQuery(pairs: Array<[string, string | null]>): string {
  if (pairs.length === 0) return "";
  return `?${pairs.map(([k, v]) => (v === null ? queryEncode(k) : `${queryEncode(k)}=${queryEncode(v)}`)).join("&")}`;
}

/** Characters a URL may not hold unescaped (RFC 3986): Hasura's parseURI refuses them. */
const NOT_IN_URL = /[\s"<>\\^`{|}]/;

function checkedUrl(text: string): URL {
  let url: URL | undefined;
  try {
    if (!NOT_IN_URL.test(text)) url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url) throw new TransformFailure([failure(`Invalid URL: ${text}`)]);
  return url;
}

function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/s, "");
}

function bodyText(b: BodyTransform | undefined, original: Json, bindings: Record<string, Json>, functions: Record<string, KritiFunction>) {
  if (!b) return jsonText(original ?? null);
  if (b.action === "remove") return "";
  if (b.action === "transform") {
    const out = render(b.template, bindings, functions);
    if ("error" in out) throw new TransformFailure([out.error]);
    return jsonText(out.value);
  }
  const values = renderAll(
    b.form.map(([, t]) => t),
    bindings,
    functions,
  );
  return b.form.map(([key], i) => `${escapeUri(key)}=${escapeUri(values[i] as string)}`).join("&");
}

export function requestContext(request: HttpRequest, body: Json, session: Record<string, string> | null): RequestContext {
  const at = request.url.indexOf("?");
  const query = at < 0 ? [] : parseQuery(request.url.slice(at + 1).replace(/#.*$/s, ""));
  return { body, base_url: request.url, session_variables: session, query_params: query };
}

/** The request a transform makes of `request` (whose body is the JSON `body`); throws a TransformFailure. */
export function transformRequest(transform: RequestTransform, request: HttpRequest, context: RequestContext): HttpRequest {
  const bindings: Record<string, Json> = {
    $body: context.body,
    $base_url: context.base_url,
    $session_variables: context.session_variables,
    $query_params: context.query_params,
  };
  const functions = sessionFunctions(context.session_variables);
  const method = transform.method ?? request.method;
  let url = request.url;
  if (transform.url) {
    const [rendered] = renderAll([transform.url], bindings, functions);
    checkedUrl(rendered as string);
    url = rendered as string;
  }
  const body = transform.body ? bodyText(transform.body, context.body, bindings, functions) : request.body;
  let query = context.query_params;
  const q = transform.queryParams;
  if (q?.kind === "template") query = parseQuery(renderAll([q.template], bindings, functions)[0] as string);
  else if (q?.kind === "pairs") {
    const keys = renderAll(
      q.pairs.map(([k]) => k),
      bindings,
      functions,
    );
    const values = renderAll(
      q.pairs.flatMap(([, v]) => (v ? [v] : [])),
      bindings,
      functions,
    );
    let next = 0;
    query = q.pairs
      .map(([, v], i): [string, string | null] => [keys[i] as string, v ? (values[next++] as string) : null])
      .filter(([k, v]) => k !== "null" && v !== "null");
  }
  let headers = request.headers;
  if (transform.headers) {
    const removed = new Set(transform.headers.remove.map((name) => name.toLowerCase()));
    const added = renderAll(
      transform.headers.add.map(([, t]) => t),
      bindings,
      functions,
    );
    headers = [
      ...headers.filter(([name]) => !removed.has(name.toLowerCase())),
      ...transform.headers.add.map(([name], i): [string, string] => [name, added[i] as string]),
    ];
  }
  return { method, url: `${withoutQuery(url)}${renderQuery(query)}`, headers, body };
}

/** Parses a body as JSON (long numbers keep their digits), or null when it is not JSON (as Hasura's `$body` is). */
export function jsonOrNull(text: string | null): Json {
  if (text === null || text === "") return null;
  try {
    return parseJsonBody(text) as Json;
  } catch {
    return null;
  }
}

/** The answer's body after a response transform, as JSON; throws a TransformFailure. */
export function transformResponse(
  transform: ResponseTransform,
  answer: { status: number; text: string },
  session: Record<string, string> | null,
  request: RequestContext | null,
): Json {
  const body = jsonOrNull(answer.text);
  const bindings: Record<string, Json> = {
    $body: body,
    $response: { status: answer.status },
    $session_variables: session,
    $request: request
      ? ({ method: request, url: request, body: request, query_params: request, request_headers: request } as unknown as Json)
      : null,
  };
  const b = transform.body;
  if (!b) return body;
  if (b.action === "remove") return null;
  const functions = sessionFunctions(session);
  if (b.action === "transform") {
    const out = render(b.template, bindings, functions);
    if ("error" in out) throw new TransformFailure([out.error]);
    return out.value;
  }
  return bodyText(b, body, bindings, functions);
}

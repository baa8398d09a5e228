/**
 * Request and response transforms as metadata spells them (REST connectors:
 * https://hasura.io/docs/latest/actions/rest-connectors/,
 * https://hasura.io/docs/latest/event-triggers/rest-connectors/; Hasura's
 * server/src-lib/Hasura/RQL/Types/Webhook/Transform.hs):
 *
 *   request_transform:  version (1 | 2, default 1), template_engine ("Kriti"), method, url,
 *                       query_params ({key: value | null} or, in v2, one template for the whole
 *                       query string), request_headers {add_headers, remove_headers}, body
 *   response_transform: version, template_engine, body
 *
 * A v1 `body` is a template; a v2 `body` is `{action: "remove" | "transform" (template) |
 * "x_www_form_urlencoded" (form_template)}`. The url, query parameters, header values and form
 * values are string templates: text with `{{ }}` parts (Hasura runs them as one Kriti string).
 *
 * Templates are compiled once, here. As in Hasura, a template that does not parse is refused by
 * the metadata commands that create transforms (`transformProblems`), while replace_metadata
 * keeps it and each call fails with the parse error when it would run.
 */

import { transformShapeInvalid } from "../errors/index.js";
import { jsonKind as kindOf } from "../json/kind.js";
import { compileKriti, KritiError, type KritiTemplate } from "./kriti/index.js";

/** A compiled template, or the parse error it fails with when it runs. */
export type Template = { source: string } & ({ ok: true; kriti: KritiTemplate } | { ok: false; error: KritiError });

export type BodyTransform =
  | { action: "remove" }
  | { action: "transform"; template: Template }
  | { action: "x_www_form_urlencoded"; form: Array<[string, Template]> };

export interface RequestTransform {
  method?: string;
  url?: Template;
  queryParams?: { kind: "pairs"; pairs: Array<[Template, Template | null]> } | { kind: "template"; template: Template };
  headers?: { add: Array<[string, Template]>; remove: string[] };
  body?: BodyTransform;
}

export interface ResponseTransform {
  body?: BodyTransform;
}

type Json = unknown;
const isObject = (value: Json): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);

function compile(source: string): Template {
  try {
    return { source, ok: true, kriti: compileKriti(source) };
  } catch (error) {
    if (error instanceof KritiError) return { source, ok: false, error };
    throw error;
  }
}

/** A string template: the text read as a Kriti string literal, as Hasura's wrapUnescapedTemplate does. */
const stringTemplate = (text: string): Template => compile(`"${text}"`);

function text(value: Json, path: string): string {
  if (typeof value !== "string") throw transformShapeInvalid(`expected String, but encountered ${kindOf(value)}`, path);
  return value;
}

function objectOf(value: Json, path: string): Record<string, Json> {
  if (!isObject(value)) throw transformShapeInvalid(`expected Object, but encountered ${kindOf(value)}`, path);
  return value;
}

function header(conf: Record<string, Json>, path: string): { version: 1 | 2 } {
  const version = conf.version ?? 1;
  if (version !== 1 && version !== 2)
    throw transformShapeInvalid(`expected 1 or 2, encountered ${JSON.stringify(version)}`, `${path}.version`);
  const engine = conf.template_engine ?? "Kriti";
  if (engine !== "Kriti") throw transformShapeInvalid(`unknown template engine ${JSON.stringify(engine)}`, `${path}.template_engine`);
  return { version };
}

function body(value: Json, version: 1 | 2, path: string): BodyTransform | undefined {
  if (value === undefined || value === null) return undefined;
  if (version === 1) return { action: "transform", template: compile(text(value, path)) };
  const conf = objectOf(value, path);
  switch (conf.action) {
    case "remove":
      return { action: "remove" };
    case "transform":
      return { action: "transform", template: compile(text(conf.template, `${path}.template`)) };
    case "x_www_form_urlencoded": {
      const form = objectOf(conf.form_template ?? {}, `${path}.form_template`);
      return {
        action: "x_www_form_urlencoded",
        form: Object.entries(form).map(([key, v]) => [key, stringTemplate(text(v, `${path}.form_template.${key}`))]),
      };
    }
    default:
      throw transformShapeInvalid("invalid transform action", `${path}.action`);
  }
}

export function parseRequestTransform(value: Json, path = "$.request_transform"): RequestTransform | undefined {
  if (value === undefined || value === null) return undefined;
  const conf = objectOf(value, path);
  const { version } = header(conf, path);
  const transform: RequestTransform = {};
  if (conf.method !== undefined && conf.method !== null) transform.method = text(conf.method, `${path}.method`);
  if (conf.url !== undefined && conf.url !== null) transform.url = stringTemplate(text(conf.url, `${path}.url`));
  const query = conf.query_params;
  if (typeof query === "string") transform.queryParams = { kind: "template", template: stringTemplate(query) };
  else if (isObject(query))
    transform.queryParams = {
      kind: "pairs",
      pairs: Object.entries(query).map(([key, v]) => [
        stringTemplate(key),
        v === null ? null : stringTemplate(text(v, `${path}.query_params.${key}`)),
      ]),
    };
  else if (query !== undefined && query !== null) throw transformShapeInvalid("Invalid query parameter", `${path}.query_params`);
  if (conf.request_headers !== undefined && conf.request_headers !== null) {
    const headers = objectOf(conf.request_headers, `${path}.request_headers`);
    const add = objectOf(headers.add_headers ?? {}, `${path}.request_headers.add_headers`);
    const remove = headers.remove_headers ?? [];
    if (!Array.isArray(remove))
      throw transformShapeInvalid(`expected Array, but encountered ${kindOf(remove)}`, `${path}.request_headers.remove_headers`);
    transform.headers = {
      add: Object.entries(add).map(([name, v]) => [name, stringTemplate(text(v, `${path}.request_headers.add_headers.${name}`))]),
      remove: remove.map((name, i) => text(name, `${path}.request_headers.remove_headers[${i}]`)),
    };
  }
  const b = body(conf.body, version, `${path}.body`);
  if (b) transform.body = b;
  return transform;
}

export function parseResponseTransform(value: Json, path = "$.response_transform"): ResponseTransform | undefined {
  if (value === undefined || value === null) return undefined;
  const conf = objectOf(value, path);
  const { version } = header(conf, path);
  const b = body(conf.body, version, `${path}.body`);
  return b ? { body: b } : {};
}

function bodyTemplates(b: BodyTransform | undefined): Template[] {
  if (!b || b.action === "remove") return [];
  return b.action === "transform" ? [b.template] : b.form.map(([, t]) => t);
}

/** Every template of a transform, for the metadata API's check. */
function templates(transform: RequestTransform | ResponseTransform): Template[] {
  const request = transform as RequestTransform;
  const query = request.queryParams;
  return [
    ...(request.url ? [request.url] : []),
    ...(query?.kind === "template" ? [query.template] : (query?.pairs ?? []).flatMap(([k, v]) => (v ? [k, v] : [k]))),
    ...(request.headers?.add ?? []).map(([, t]) => t),
    ...bodyTemplates(transform.body),
  ];
}

/** The parse errors of a transform's templates, serialised as Hasura reports them. */
export function transformProblems(transform: RequestTransform | ResponseTransform | undefined): unknown[] {
  if (!transform) return [];
  return templates(transform).flatMap((t) => (t.ok ? [] : [t.error.toJSON()]));
}

/** A webhook's transforms (an action's definition, a trigger's configuration). */
export interface Transforms {
  request?: RequestTransform | undefined;
  response?: ResponseTransform | undefined;
}

/** What transformsOf read, by metadata object (metadata is never changed in place: a change makes new objects). */
const read = new WeakMap<object, { transforms: Transforms } | { problem: string }>();

/**
 * The transforms of `conf`, or why they cannot be read (a shape metadata decoding refuses, kept
 * by replace_metadata): the object is then reported inconsistent rather than served without them.
 */
export function transformsOf(conf: Record<string, unknown>): { transforms: Transforms } | { problem: string } {
  // A rebuild asks for the same metadata object's transforms in several places (its consistency
  // check, then the model): its templates are compiled once.
  const known = read.get(conf);
  if (known) return known;
  let result: { transforms: Transforms } | { problem: string };
  try {
    result = {
      transforms: { request: parseRequestTransform(conf.request_transform), response: parseResponseTransform(conf.response_transform) },
    };
  } catch (error) {
    if (!(error instanceof Error && "path" in error)) throw error;
    result = { problem: `${error.message} at ${String(error.path)}` };
  }
  read.set(conf, result);
  return result;
}

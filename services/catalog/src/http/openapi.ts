/**
 * The OpenAPI document, as FastAPI generates it (https://fastapi.tiangolo.com/advanced/path-operation-advanced-configuration/):
 * operationId `<handler>_<path>_<method>` and summary `<Handler Name>` from the original handler
 * names, parameters from the routes' schemas (titles, defaults, bounds, enums), the 200 body, the
 * service's own errors and FastAPI's 422 `HTTPValidationError`. @fastify/swagger collects the
 * routes; `transform` adds what Fastify's route schema does not carry (response schemas stay out of
 * Fastify, so they document the bodies without changing how they are serialised).
 */
import { STATUS_CODES } from "node:http";
import swagger from "@fastify/swagger";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { forwardedPrefix } from "./forwarded.js";
import { type ComponentName, componentRef, componentSchemas, type JsonSchema, titleOf } from "./responses.js";
import type { ObjectSchema } from "./validation.js";

export const TITLE = "Endpoint Read-Only API";
const VERSION = "0.1.0";

const TAGS = [
  { name: "health", description: "Whether the catalog database can be read." },
  { name: "products", description: "Canonical products, their store listings, price history and counts." },
  { name: "categories", description: "Store categories." },
  { name: "settlements", description: "Settlements served by the stores." },
  { name: "sync", description: "The converter's progress through each store's feed." },
] as const;
export type Tag = (typeof TAGS)[number]["name"];

/** What the document says about one route besides its parameters. */
export interface OperationDoc {
  /** The original FastAPI handler's name: operationId and summary derive from it as FastAPI does. */
  name: string;
  tag: Tag;
  description?: string;
  /** Body of the 200 answer. */
  response: ComponentName;
  /**
   * Statuses the handler answers with `{"detail": "<message>"}`, besides 503 (every route reads
   * the database). 422 here means "also with a message", on top of validation's list.
   */
  errors?: ReadonlyArray<400 | 404 | 422>;
}

/** FastAPI's generate_unique_id: `re.sub(r"\W", "_", name + path_format) + "_" + method`. */
export const operationId = (name: string, url: string, method = "get"): string =>
  `${`${name}${url.replace(/:(\w+)/g, "{$1}")}`.replace(/\W/g, "_")}_${method}`;

/** A `$ref` must stand alone, so its description goes where @fastify/swagger reads it for a response. */
const described = (description: string, schema: JsonSchema): JsonSchema =>
  "$ref" in schema ? { description, ...schema } : { "x-response-description": description, ...schema };

function responses(doc: OperationDoc, hasParameters: boolean): Record<number, JsonSchema> {
  const error = componentRef("HTTPError");
  const out: Record<number, JsonSchema> = { 200: described("Successful Response", componentRef(doc.response)) };
  for (const status of doc.errors ?? []) if (status !== 422) out[status] = described(STATUS_CODES[status] ?? "Error", error);
  if (hasParameters || doc.errors?.includes(422)) {
    const validation = componentRef("HTTPValidationError");
    out[422] = described("Validation Error", doc.errors?.includes(422) ? { anyOf: [validation, error] } : validation);
  }
  out[503] = described("The catalog database cannot be read", error);
  return out;
}

/** Parameter schemas as documented: pydantic's titles, and handler-checked parameters marked required. */
function documented(schema: ObjectSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([name, p]) => [name, { title: titleOf(name), ...p }]));
  const required = [...(schema.required ?? []), ...(schema.checkedByHandler ?? [])];
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

interface RouteSchema {
  params?: ObjectSchema;
  querystring?: ObjectSchema;
  hide?: boolean;
}

function transform({ schema, url, route }: { schema: unknown; url: string; route: { config?: unknown } }) {
  const doc = (route.config as { openapi?: OperationDoc } | undefined)?.openapi;
  const own = (schema ?? {}) as RouteSchema;
  if (!doc || own.hide) return { schema: schema as Record<string, unknown>, url };
  const params = documented(own.params);
  const querystring = documented(own.querystring);
  return {
    url,
    schema: {
      ...own,
      operationId: operationId(doc.name, url),
      summary: titleOf(doc.name),
      ...(doc.description ? { description: doc.description } : {}),
      tags: [doc.tag],
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      response: responses(doc, Boolean(params || querystring)),
    },
  };
}

type Operation = { parameters?: Array<{ in: string }> };

/** FastAPI's layout: top-level keys in its order, path parameters first (as in the handlers' signatures). */
function inFastApiOrder<T extends object>(document: T): T {
  const { openapi, info, paths, components, ...rest } = document as Record<string, unknown>;
  for (const item of Object.values((paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) {
      operation.parameters?.sort((a, b) => Number(b.in === "path") - Number(a.in === "path"));
    }
  }
  return { openapi, info, paths, components, ...rest } as T;
}

/**
 * The document for one request: behind a proxy that stripped a prefix, `servers` names it, so
 * "Try it out" in /docs calls the API through the proxy, as FastAPI does with its root_path
 * (https://fastapi.tiangolo.com/advanced/behind-a-proxy/).
 */
export function documentFor(document: object, request: FastifyRequest): Record<string, unknown> {
  const whole = document as Record<string, unknown>;
  const prefix = forwardedPrefix(request.headers["x-forwarded-prefix"]);
  if (!prefix) return whole;
  const { openapi, info, ...rest } = whole;
  return { openapi, info, servers: [{ url: prefix }], ...rest };
}

/** The answer depends on this header: caches must keep one copy per prefix. */
export const DOCUMENT_VARY = "X-Forwarded-Prefix";

/** Registers @fastify/swagger (before the routes: it collects them as they are added) and GET /openapi.json. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: TITLE, version: VERSION },
      tags: [...TAGS],
      components: { schemas: componentSchemas },
    },
    transform,
    transformObject: (input) => inFastApiOrder("openapiObject" in input ? input.openapiObject : input.swaggerObject),
  });
  app.get("/openapi.json", { schema: { hide: true } }, async (request, reply) => {
    reply.header("vary", DOCUMENT_VARY);
    return documentFor(app.swagger(), request);
  });
}

/**
 * The Fastify adapter of the engine: /v1/graphql (200 with `errors` for every GraphQL-level
 * failure, batches as arrays), the admin endpoints /v1/metadata, /v2/query and /v1/query (real
 * statuses, body `{path, error, code}`), /healthz, /v1/version and the console (`/` leads to it).
 */
import { createHttpApp, LightAbortController, type Logger } from "@platform/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  adminOnly,
  fromAppError,
  HasuraError,
  invalidJson,
  notARequestBody,
  resourceNotFound,
  withStatus,
} from "../engine/errors/index.js";
import { errorBody, type GraphQLResponse } from "../engine/execute.js";
import { jsonText } from "../engine/json/number.js";
import type { RequestContext } from "../engine/limits/guard.js";
import type { Session } from "../engine/request/session.js";
import { VERSION } from "../engine/version.js";
import { clientAddress } from "./client-address.js";
import { registerConsole } from "./console.js";
import { type CorsConfig, registerCors } from "./cors.js";
import { registerJsonBodies } from "./json-body.js";

export type AdminEndpoint = "/v1/metadata" | "/v2/query" | "/v1/query";

export interface GraphqlApi {
  resolveSession(headers: Record<string, string | undefined>, body: unknown): Promise<Session>;
  execute(request: Record<string, unknown>, session: Session, context?: RequestContext): Promise<GraphQLResponse>;
  /** The error for a batch of `size` operations too large for the session (API limits' batch_limit). */
  batchError?(session: Session, size: number): HasuraError | undefined;
  /** `session`: the caller's session variables (legacy data operations record them, as Hasura's do). */
  admin(endpoint: AdminEndpoint, body: unknown, session: Record<string, string>): Promise<unknown>;
  health(): Promise<"OK" | "WARN">;
}

export interface HttpOptions {
  logger: Logger;
  cors: CorsConfig;
  enableConsole: boolean;
  /** Prefilled in the console's headers editor (the local all-in-one start only). */
  consoleAdminSecret?: string | undefined;
  bodyLimit?: number;
}

function headerMap(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(",") : value;
  return out;
}

function definedHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * What the engine needs of the HTTP request: the client's address, and a signal aborted when the
 * client's connection closes before the response is sent, which cancels the request's statements.
 * A LightAbortController's: on Node 20 an AbortController's signal per request costs measurable
 * CPU and memory under load (see packages/core/src/db/abort.ts).
 */
function requestContext(request: FastifyRequest, reply: FastifyReply, headers: Record<string, string | undefined>): RequestContext {
  const controller = new LightAbortController();
  const gone = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error("the client closed the connection"));
  };
  reply.raw.once("close", gone);
  if (request.socket?.destroyed) gone();
  return { signal: controller.signal, ip: clientAddress(request), requestId: request.id, headers: definedHeaders(headers) };
}

function adminErrorBody(error: HasuraError) {
  return { path: error.path, error: error.message, code: error.hasuraCode, ...(error.details ? { internal: error.details } : {}) };
}

export function buildHttpApp(api: GraphqlApi, options: HttpOptions): FastifyInstance {
  const app = createHttpApp({
    logger: options.logger,
    fastify: { bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024 },
    renderError: (error) => {
      const hasura = error instanceof HasuraError ? error : fromAppError(error);
      return { status: hasura.status, body: adminErrorBody(hasura) };
    },
    renderInternal: (id) => ({ path: "$", error: `unexpected error (id ${id})`, code: "unexpected" }),
    mapFrameworkError: (error) => {
      if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.statusCode === 400) return invalidJson();
      return undefined;
    },
  });
  registerCors(app, options.cors);
  registerJsonBodies(app);

  const graphql = async (request: FastifyRequest, reply: FastifyReply): Promise<GraphQLResponse> => {
    const body = request.body;
    const headers = headerMap(request);
    const refused = (error: HasuraError): GraphQLResponse => ({ body: errorBody(error), failed: true });
    let session: Session;
    try {
      session = await api.resolveSession(headers, body);
    } catch (error) {
      if (error instanceof HasuraError) return refused(error);
      throw error;
    }
    const context = requestContext(request, reply, headers);
    if (Array.isArray(body)) {
      const tooMany = api.batchError?.(session, body.length);
      if (tooMany) return refused(tooMany);
      // One after another, as Hasura runs a batch (runGQBatched in server/src-lib/Hasura/GraphQL/Transport/HTTP.hs):
      // a batch holds one connection at a time, and its answers share one response budget (the context's).
      const results: string[] = [];
      for (const item of body) results.push((await api.execute((item ?? {}) as Record<string, unknown>, session, context)).body);
      // A batch answers its array whatever its items say.
      return { body: `[${results.join(",")}]`, failed: false };
    }
    if (body === null || typeof body !== "object") return refused(notARequestBody());
    return api.execute(body as Record<string, unknown>, session, context);
  };
  const send = (reply: FastifyReply, response: GraphQLResponse) => {
    if (response.setCookies) reply.header("set-cookie", response.setCookies);
    return reply.type("application/json; charset=utf-8").send(response.body);
  };
  app.post("/v1/graphql", async (request, reply) => send(reply, await graphql(request, reply)));
  // The legacy endpoint answers the same bodies, but with HTTP 400 when the response holds errors.
  app.post("/v1alpha1/graphql", async (request, reply) => {
    const response = await graphql(request, reply);
    if (response.failed) reply.code(400);
    return send(reply, response);
  });

  for (const endpoint of ["/v1/metadata", "/v2/query", "/v1/query"] as const) {
    app.post(endpoint, async (request, reply) => {
      const session = await api.resolveSession(headerMap(request), request.body).catch((error: unknown) => {
        if (error instanceof HasuraError) throw withStatus(error, 401);
        throw error;
      });
      if (!session.isAdmin && session.role !== "admin") throw adminOnly();
      const result = await api.admin(endpoint, request.body, { ...session.variables, "x-hasura-role": session.role });
      // Printed by jsonText: rows read by the legacy data operations keep long numbers' digits.
      return reply.type("application/json; charset=utf-8").send(jsonText(result));
    });
  }

  app.get("/healthz", async (_request, reply) => reply.type("text/plain").send(await api.health()));
  app.get("/v1/version", async () => ({ version: VERSION }));
  if (options.enableConsole) registerConsole(app, { adminSecret: options.consoleAdminSecret });
  app.setNotFoundHandler(async (_request) => {
    throw resourceNotFound();
  });
  return app;
}

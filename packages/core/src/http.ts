/**
 * Fastify app factory shared by the services: request ids (taken from a sane incoming
 * `x-request-id` or generated, echoed back), one error handler that renders AppErrors in the
 * service's shape and answers anything unexpected with a generic body carrying an id.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { AppError } from "./errors.js";
import type { Logger } from "./logger.js";

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface HttpAppOptions {
  logger: Logger;
  /** Renders an AppError into a status and a body. */
  renderError(error: AppError, request: FastifyRequest): { status: number; body: unknown; headers?: Record<string, string> };
  /** Body for an unexpected failure; `id` is logged alongside the error. */
  renderInternal(id: string, request: FastifyRequest): unknown;
  /** Maps Fastify's own errors (bad JSON, body too large, ...) to an AppError. */
  mapFrameworkError?(error: FastifyError): AppError | undefined;
  /** Health-probe routes: their request lines are logged at debug, not info (default `/health`, `/healthz`). */
  probePaths?: string[];
  /** Fastify options passed through (router settings, body limit, ...). */
  fastify?: Record<string, unknown>;
}

export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    ...options.fastify,
  }) as unknown as FastifyInstance;

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  const probes = new Set(options.probePaths ?? ["/health", "/healthz"]);
  app.addHook("onResponse", async (request, reply) => {
    // Load balancers and start scripts poll the probes every few seconds: keep them out of the info log.
    const level = probes.has(request.routeOptions.url ?? "") ? "debug" : "info";
    if (!options.logger.isLevelEnabled(level)) return;
    request.log[level](
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      "request",
    );
  });

  // Closing: a keep-alive connection whose request was in flight when the server began to close is
  // not idle then, and would hold the close until its client lets it go (Fastify keeps connections
  // alive 72 s). A response sent while closing tells the client to close the connection with it.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendError(options, error, request, reply));
  return app;
}

function sendError(options: HttpAppOptions, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = error instanceof AppError ? error : (options.mapFrameworkError?.(error) ?? unmappedClientError(error));
  if (known) {
    const { status, body, headers } = options.renderError(known, request);
    if (status >= 500 && !known.reported) request.log.error({ err: error }, known.message);
    if (headers) reply.headers(headers);
    return reply.code(status).send(body);
  }
  const id = randomUUID();
  request.log.error({ err: error, errorId: id }, "unexpected error");
  return reply.code(500).send(options.renderInternal(id, request));
}

/** Fastify's own 4xx errors (unsupported media type, body too large, ...) stay client errors when the service maps none of them. */
function unmappedClientError(error: FastifyError): AppError | undefined {
  const status = error.statusCode;
  if (!error.code?.startsWith("FST_") || status === undefined || status < 400 || status > 499) return undefined;
  return new AppError(status, error.code, error.message, undefined, { cause: error });
}

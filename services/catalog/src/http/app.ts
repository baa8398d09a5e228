/**
 * Builds the catalog's Fastify app: FastAPI-compatible error bodies (`{"detail": ...}`),
 * 404 for unknown paths, 405 for other methods on known paths, 307 from a trailing slash,
 * CORS, the OpenAPI document and its docs page.
 */
import { STATUS_CODES } from "node:http";
import { AppError, createHttpApp, type Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { Catalog } from "../domain/catalog.js";
import { errors } from "../domain/errors.js";
import { registerCors } from "./cors.js";
import { registerDocs } from "./docs.js";
import { registerOpenApi } from "./openapi.js";
import { pathMatcher, registerRoutes, routeSpecs } from "./routes.js";
import { validatorCompiler } from "./validation.js";

export interface HttpAppOptions {
  /** Origins allowed by CORS: `["*"]` (the default) for any, `[]` for none. */
  corsOrigins?: readonly string[];
}

export async function buildHttpApp(catalog: Catalog, logger: Logger, options: HttpAppOptions = {}): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger,
    fastify: { exposeHeadRoutes: false, routerOptions: { maxParamLength: 2048 } },
    renderError: (error) => ({ status: error.status, body: { detail: error.details ?? error.message } }),
    renderInternal: (id) => ({ detail: "Internal Server Error", error_id: id }),
    mapFrameworkError: (error) => {
      const status = error.statusCode ?? 500;
      return status >= 400 && status < 500
        ? new AppError(status, error.code ?? "bad_request", STATUS_CODES[status] ?? "Bad Request")
        : undefined;
    },
  });
  app.setValidatorCompiler(validatorCompiler);

  await registerCors(app, options.corsOrigins ?? ["*"]);
  await registerOpenApi(app);
  await registerDocs(app);

  const specs = routeSpecs(catalog);
  registerRoutes(app, specs, errors);

  // Starlette redirects a path with a trailing slash to the route without it (307).
  const known = pathMatcher(specs);
  app.addHook("onRequest", async (request, reply) => {
    const url = request.url;
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    if (path.length <= 1 || !path.endsWith("/")) return;
    const query = mark === -1 ? "" : url.slice(mark + 1);
    const stripped = path.replace(/\/+$/, "");
    if (!known(stripped)) return;
    const location = `${request.protocol}://${request.host}${stripped}${query ? `?${query}` : ""}`;
    return reply.code(307).header("location", location).send();
  });
  app.setNotFoundHandler(async () => {
    throw errors.notFound();
  });
  return app;
}

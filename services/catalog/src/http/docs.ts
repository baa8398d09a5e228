/**
 * GET /docs: Swagger UI (https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/)
 * from the copy bundled with @fastify/swagger-ui, so the page needs nothing from the internet,
 * configured as FastAPI's get_swagger_ui_html does (BaseLayout, deep links, extensions shown).
 */
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { DOCUMENT_VARY, documentFor, TITLE } from "./openapi.js";

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    // The page at /docs would link its assets as /docs/static/..., which misses the gateway's
    // /catalog prefix (fastify/fastify-swagger-ui#240); "." makes those links relative
    // (./docs/static/...), right both directly and under any prefix. The spec itself is fetched
    // relative to the page (./json) by the plugin's initializer.
    indexPrefix: ".",
    theme: { title: `${TITLE} - Swagger UI` },
    uiConfig: { layout: "BaseLayout", deepLinking: true, showExtensions: true, showCommonExtensions: true },
    transformSpecificationClone: false,
    transformSpecification: (document, request, reply) => {
      reply.header("vary", DOCUMENT_VARY);
      return documentFor(document, request);
    },
  });
}

/** JSON request bodies for /v1/graphql read without losing digits (engine/json/parse.ts). */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidJson } from "../engine/errors/index.js";
import { LONG_NUMBER, parseJsonBody } from "../engine/json/parse.js";

/** Only the GraphQL endpoints and /v1/query (its legacy data operations) carry values bound for columns; the others keep plain JSON. */
function keepsDigits(request: FastifyRequest): boolean {
  return request.url.startsWith("/v1/graphql") || request.url.startsWith("/v1alpha1/graphql") || request.url.startsWith("/v1/query");
}

/**
 * Request bodies as JSON whatever their content type, as Hasura reads them (curl sends form
 * encoding by default); GraphQL requests keep the digits of long numbers.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  const standard = app.getDefaultJsonParser("error", "error");
  // text/plain too (Fastify would hand the route a string): it falls to the catch-all below.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (!keepsDigits(request) || !LONG_NUMBER.test(text)) return standard(request, text, done);
    try {
      done(null, parseJsonBody(text));
    } catch {
      done(invalidJson(), undefined);
    }
  });
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    try {
      done(null, text === "" ? undefined : keepsDigits(request) ? parseJsonBody(text) : JSON.parse(text));
    } catch {
      done(invalidJson(), undefined);
    }
  });
}

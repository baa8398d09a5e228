/**
 * Request bodies are JSON whatever the content type says (as GoTrue reads them); an empty body
 * is an empty object, so `POST /logout` with `Content-Type: application/json` and no body works.
 */
import type { FastifyInstance } from "fastify";
import { errors } from "../domain/errors.js";
import { MAX_BODY_BYTES } from "./errors.js";

// A `__proto__` key would reach an object's prototype when a body is merged into stored metadata.
const dropPrototypeKeys = (key: string, value: unknown) => (key === "__proto__" ? undefined : value);

export function registerJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text, dropPrototypeKeys));
    } catch (error) {
      done(errors.badJson((error as Error).message), undefined);
    }
  });
}

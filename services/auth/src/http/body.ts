/**
 * Request bodies are JSON whatever the content type says (as GoTrue reads them); an empty body
 * is an empty object, so `POST /logout` with `Content-Type: application/json` and no body works.
 */
import type { FastifyInstance } from "fastify";
import { errors } from "../domain/errors.js";
import { MAX_BODY_BYTES } from "./errors.js";

class NulCharacter extends Error {
  constructor() {
    super("strings may not contain NUL (\\u0000) characters");
  }
}

/**
 * Drops `__proto__` keys (one would reach an object's prototype when a body is merged into stored
 * metadata) and refuses NUL characters, which PostgreSQL text and jsonb cannot hold.
 */
function reviver(key: string, value: unknown): unknown {
  if (key.includes("\0") || (typeof value === "string" && value.includes("\0"))) throw new NulCharacter();
  return key === "__proto__" ? undefined : value;
}

export function registerJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    // A provider posting its answer to /callback (Apple's response_mode=form_post) sends a form.
    const form = (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");
    if (form && request.url.split("?")[0]?.endsWith("/callback")) return done(null, Object.fromEntries(new URLSearchParams(text)));
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text, reviver));
    } catch (error) {
      done(errors.badJson((error as Error).message), undefined);
    }
  });
}

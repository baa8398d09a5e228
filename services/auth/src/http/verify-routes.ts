/** POST /verify (a session, or the first half of a secure email change) and GET /verify (a 303 redirect). */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { referrer } from "../domain/redirects.js";
import type { AuthService } from "../domain/service.js";
import { verifyPost } from "../domain/verify.js";
import { verifyGet } from "../domain/verify-redirect.js";
import { verifyBody } from "./admin-schemas.js";
import { requestMeta } from "./request-meta.js";
import { field } from "./schemas.js";

type Body = Record<string, unknown>;

const str = (value: unknown): string | undefined => field(value as string | null | undefined);

/**
 * A redirect target as a header value: characters a header cannot carry (controls, anything
 * beyond ASCII) percent-encoded as UTF-8, everything else exactly as the client wrote it.
 */
export function headerSafe(url: string): string {
  return url.replace(/[^\x21-\x7e]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return "%EF%BF%BD"; // a lone surrogate: U+FFFD, as a UTF-8 encoder would write it
    }
  });
}

export function registerVerifyRoutes(app: FastifyInstance, service: AuthService): void {
  const deps = service.deps;
  const meta = (request: FastifyRequest) => requestMeta(request, service.config);

  app.post("/verify", { schema: { body: verifyBody } }, async (request) => {
    const body = request.body as Body;
    const result = await verifyPost(deps, meta(request), {
      type: str(body.type),
      token: str(body.token),
      tokenHash: str(body.token_hash),
      email: str(body.email),
      phone: str(body.phone),
      redirectTo: str(body.redirect_to),
    });
    // GoTrue answers the first half of a secure email change with a message and the status as a string.
    if (result.kind === "half") return { msg: result.message, code: "200" };
    return { ...result.session, type: result.type };
  });

  app.get("/verify", async (request, reply) => {
    const query = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "");
    const header = request.headers.redirect_to;
    const requested = typeof header === "string" && header !== "" ? header : (query.get("redirect_to") ?? undefined);
    const redirectTo = referrer(service.config, requested, request.headers.referer);
    const location = await verifyGet(
      deps,
      meta(request),
      { type: query.get("type") ?? undefined, token: query.get("token") ?? undefined },
      redirectTo,
    );
    return reply.code(303).header("location", headerSafe(location)).send();
  });
}

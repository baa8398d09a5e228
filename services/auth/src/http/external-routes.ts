/**
 * Sign-in with external providers and manual identity linking (GoTrue's routes in
 * supabase/auth internal/api/api.go): GET /authorize, GET and POST /callback,
 * GET /user/identities/authorize and DELETE /user/identities/{identity_id}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AuthorizeInput } from "../domain/external/flow.js";
import { referrer } from "../domain/redirects.js";
import type { AuthService } from "../domain/service.js";
import { queryPairs, redirectHints } from "./admin-routes.js";
import { requestMeta } from "./request-meta.js";

/** The query in order, one value per key (Go's Query().Get takes the first). */
function firstValues(request: FastifyRequest): [string, string][] {
  const seen = new Set<string>();
  return queryPairs(request).filter(([key]) => !seen.has(key) && seen.add(key) !== undefined);
}

export function registerExternalRoutes(app: FastifyInstance, service: AuthService): void {
  const meta = (request: FastifyRequest) => requestMeta(request, service.config);

  const authorizeInput = (request: FastifyRequest): AuthorizeInput => {
    const query = firstValues(request);
    const get = (key: string) => query.find(([k]) => k === key)?.[1];
    const hints = redirectHints(request);
    return {
      provider: get("provider") ?? "",
      scopes: get("scopes"),
      codeChallenge: get("code_challenge"),
      codeChallengeMethod: get("code_challenge_method"),
      query,
      referrer: referrer(service.config, hints.redirectTo, hints.referer),
      inviteToken: get("invite_token"),
    };
  };

  app.get("/authorize", async (request, reply) => reply.redirect(await service.authorize(authorizeInput(request)), 302));

  const callback = async (request: FastifyRequest, reply: FastifyReply, params: URLSearchParams) => {
    const answer = await service.callback(meta(request), params, request.log);
    return reply.redirect(answer.location, answer.status);
  };
  app.get("/callback", async (request, reply) => callback(request, reply, new URLSearchParams(firstValues(request))));
  app.post("/callback", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(body)) if (typeof value === "string") params.set(key, value);
    return callback(request, reply, params);
  });

  app.get("/user/identities/authorize", async (request, reply) => {
    const url = await service.linkIdentity(meta(request), request.headers.authorization, authorizeInput(request));
    if ((request.query as Record<string, unknown>).skip_http_redirect === "true") return { url };
    return reply.redirect(url, 302);
  });

  app.delete("/user/identities/:identityId", async (request) => {
    const { identityId } = request.params as { identityId: string };
    return service.unlinkIdentity(meta(request), request.headers.authorization, identityId);
  });
}

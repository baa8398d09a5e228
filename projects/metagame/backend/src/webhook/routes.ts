/**
 * GET /auth-webhook: the engine's authentication hook in GET mode, which forwards the client's
 * headers (https://hasura.io/docs/2.0/auth/authentication/webhook/). As MetaGame's
 * (packages/backend/src/handlers/auth-webhook/handler.ts): no Authorization header or an empty
 * bearer token is role `public`; any other scheme, or a token that does not verify, is 401 with
 * an empty body; a user's token is role `player` with the player's id, the player being created
 * on first sight. API keys: `anon` is `public`, `service_role` is `admin`.
 *
 * A player answer carries `Cache-Control: max-age` in its body, the hook's documented way to say
 * how long the answer holds: until the token expires, at most MAX_AGE_S.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { BackendDeps } from "../app.js";
import { createPlayerRegistry } from "./players.js";
import { createTokenVerifier, TokenRejected } from "./token.js";

export const AUTH_WEBHOOK_PATH = "/auth-webhook";
export const MAX_AGE_S = 300;

const PUBLIC = { "X-Hasura-Role": "public" };
const ADMIN = { "X-Hasura-Role": "admin" };

/** The bearer token; null for none (public); undefined for another scheme (refused). The scheme is case-insensitive (RFC 7235). */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined || header === "") return null;
  const match = /^bearer(?:\s+(.*))?$/is.exec(header.trim());
  if (!match) return undefined;
  const token = (match[1] ?? "").trim();
  return token === "" ? null : token;
}

const unauthorized = (reply: FastifyReply) => reply.code(401).send();

export async function registerAuthWebhook(app: FastifyInstance, deps: BackendDeps): Promise<void> {
  const verifier = createTokenVerifier(deps.config);
  const players = createPlayerRegistry(deps);

  app.get(AUTH_WEBHOOK_PATH, async (request, reply) => {
    const token = bearerToken(request.headers.authorization);
    if (token === null) return PUBLIC;
    if (token === undefined) {
      request.log.debug("auth webhook: not a bearer token");
      return unauthorized(reply);
    }
    let identity: Awaited<ReturnType<typeof verifier.identify>>;
    try {
      identity = await verifier.identify(token);
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      request.log.debug({ reason: error.message }, "auth webhook: token refused");
      return unauthorized(reply);
    }
    if (identity.kind === "public") return PUBLIC;
    if (identity.kind === "admin") return ADMIN;
    await players.ensure(identity.userId, identity.walletAddress, request.log);
    const maxAge = Math.max(0, Math.min(MAX_AGE_S, identity.exp - Math.floor(Date.now() / 1000)));
    return { "X-Hasura-Role": "player", "X-Hasura-User-Id": identity.userId, "Cache-Control": `max-age=${maxAge}` };
  });
}

/** The routes of this increment; each one reads the wire format and calls the domain. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { errors } from "../domain/errors.js";
import { referrer } from "../domain/redirects.js";
import type { AuthService } from "../domain/service.js";
import { redirectHints } from "./admin-routes.js";
import type { Limiter } from "./rate-limit.js";
import { requestMeta, trustedClientKey } from "./request-meta.js";
import {
  field,
  logoutQuery,
  magicLinkBody,
  otpBody,
  recoverBody,
  resendBody,
  signupBody,
  tokenBody,
  tokenQuery,
  userUpdateBody,
} from "./schemas.js";

type Body = Record<string, unknown>;
type Text = string | null | undefined;

const str = (value: unknown): string | undefined => field(value as Text);
const obj = (value: unknown) => field(value as Record<string, unknown> | null | undefined);

export function registerRoutes(app: FastifyInstance, service: AuthService, tokenLimiter: Limiter): void {
  const meta = (request: FastifyRequest) => requestMeta(request, service.config);
  const authorization = (request: FastifyRequest) => request.headers.authorization;

  app.get("/health", async () => service.health());
  app.get("/settings", async () => service.settings());
  app.get("/.well-known/jwks.json", async (_request, reply) => {
    reply.header("cache-control", "public, max-age=600");
    return service.jwks();
  });

  /** The request's redirect target (redirect_to query or header, Referer), checked against the allow list. */
  const redirectTo = (request: FastifyRequest) => {
    const hints = redirectHints(request);
    return referrer(service.config, hints.redirectTo, hints.referer);
  };
  const pkce = (body: Body) => ({ codeChallenge: str(body.code_challenge), codeChallengeMethod: str(body.code_challenge_method) });

  app.post("/signup", { schema: { body: signupBody } }, async (request) => {
    const body = request.body as Body;
    const result = await service.signup(meta(request), {
      redirectTo: redirectTo(request),
      email: str(body.email),
      phone: str(body.phone),
      password: str(body.password),
      data: obj(body.data),
      channel: str(body.channel),
      codeChallenge: str(body.code_challenge),
      codeChallengeMethod: str(body.code_challenge_method),
    });
    return "session" in result ? result.session : result.user;
  });

  app.post("/recover", { schema: { body: recoverBody } }, async (request) => {
    const body = request.body as Body;
    return service.recover(meta(request), { email: str(body.email), ...pkce(body) }, redirectTo(request));
  });

  app.post("/otp", { schema: { body: otpBody } }, async (request) => {
    const body = request.body as Body;
    const input = {
      email: str(body.email),
      phone: str(body.phone),
      createUser: field(body.create_user as boolean | null | undefined),
      data: obj(body.data),
      channel: str(body.channel),
      ...pkce(body),
    };
    return service.otp(meta(request), input, redirectTo(request));
  });

  app.post("/magiclink", { schema: { body: magicLinkBody } }, async (request) => {
    const body = request.body as Body;
    return service.magicLink(meta(request), { email: str(body.email), data: obj(body.data), ...pkce(body) }, redirectTo(request));
  });

  app.post("/resend", { schema: { body: resendBody } }, async (request) => {
    const body = request.body as Body;
    const input = { type: str(body.type), email: str(body.email), phone: str(body.phone), ...pkce(body) };
    return service.resend(meta(request), input, redirectTo(request));
  });

  app.post("/token", { schema: { body: tokenBody, querystring: tokenQuery } }, async (request) => {
    const key = trustedClientKey(request, service.config);
    if (key !== undefined && !(await tokenLimiter.allow(key))) throw errors.rateLimited();
    const body = request.body as Body;
    const grantType = (request.query as { grant_type?: string }).grant_type;
    return service.token(meta(request), grantType, {
      email: str(body.email),
      phone: str(body.phone),
      password: str(body.password),
      refreshToken: str(body.refresh_token),
      authCode: str(body.auth_code),
      codeVerifier: str(body.code_verifier),
      idToken: str(body.id_token),
      provider: str(body.provider),
      clientId: str(body.client_id),
      issuer: str(body.issuer),
      accessToken: str(body.access_token),
      nonce: str(body.nonce),
      linkIdentity: field(body.link_identity as boolean | null | undefined),
      authorization: authorization(request),
    });
  });

  app.get("/user", async (request) => service.getUser(meta(request), authorization(request)));

  app.put("/user", { schema: { body: userUpdateBody } }, async (request) => {
    const body = request.body as Body;
    return service.updateUser(meta(request), authorization(request), {
      email: str(body.email),
      phone: str(body.phone),
      password: str(body.password),
      currentPassword: str(body.current_password),
      nonce: str(body.nonce),
      data: obj(body.data),
      appMetadata: obj(body.app_metadata),
      channel: str(body.channel),
      ...pkce(body),
      redirectTo: redirectTo(request),
    });
  });

  app.get("/reauthenticate", async (request) => service.reauthenticate(meta(request), authorization(request)));

  app.post("/logout", { schema: { querystring: logoutQuery } }, async (request, reply) => {
    await service.logout(meta(request), authorization(request), (request.query as { scope?: string }).scope);
    return reply.code(204).send();
  });
}

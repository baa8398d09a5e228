/**
 * GoTrue features this service does not have (SAML SSO, the OAuth 2.1 server, custom OAuth/OIDC
 * providers, passkeys), answered as GoTrue answers while each is disabled, after the same
 * authentication GoTrue's routes require first (supabase/auth internal/api/api.go and
 * middleware.go require*Enabled), rather than with a generic 404. The admin lists of SSO
 * providers and of a user's passkeys answer empty.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { authenticateAdmin } from "../domain/admin-auth.js";
import { loadUser } from "../domain/admin-users.js";
import { errors } from "../domain/errors.js";
import type { AuthService } from "../domain/service.js";
import { requestMeta } from "./request-meta.js";

type Refusal = () => Error;

export function registerDisabledRoutes(app: FastifyInstance, service: AuthService): void {
  const both = (path: string, answer: (request: FastifyRequest) => Promise<never>) => {
    app.all(path, answer);
    app.all(`${path}/*`, answer);
  };
  const open = (refuse: Refusal) => async (): Promise<never> => {
    throw refuse();
  };
  const admin =
    (refuse: Refusal) =>
    async (request: FastifyRequest): Promise<never> => {
      await authenticateAdmin(service.deps, request.headers.authorization);
      throw refuse();
    };
  const user =
    (refuse: Refusal) =>
    async (request: FastifyRequest): Promise<never> => {
      await service.authenticate(requestMeta(request, service.config), request.headers.authorization);
      throw refuse();
    };

  both("/sso", open(errors.samlDisabled));
  both("/passkeys", open(errors.passkeysDisabled));
  both("/oauth", open(errors.oauthServerDisabled));
  app.get("/.well-known/oauth-authorization-server", open(errors.oauthServerDisabled));
  both("/user/oauth/grants", user(errors.oauthServerDisabled));
  both("/admin/oauth", admin(errors.oauthServerDisabled));
  both("/admin/custom-providers", admin(errors.customProvidersDisabled));

  // GoTrue serves these whatever its SAML and passkey switches say: with neither feature there
  // are no providers and no passkeys to list, find or delete, and no provider can be created.
  app.get("/admin/sso/providers", async (request) => {
    await authenticateAdmin(service.deps, request.headers.authorization);
    return { items: [] };
  });
  app.post("/admin/sso/providers", admin(errors.samlDisabled));
  app.all("/admin/sso/providers/:idp_id", admin(errors.ssoProviderNotFound));
  app.get("/admin/users/:user_id/passkeys", async (request) => {
    await authenticateAdmin(service.deps, request.headers.authorization);
    await loadUser(service.deps.db, service.deps, (request.params as { user_id: string }).user_id);
    return [];
  });
  app.delete("/admin/users/:user_id/passkeys/:passkey_id", async (request) => {
    await authenticateAdmin(service.deps, request.headers.authorization);
    await loadUser(service.deps.db, service.deps, (request.params as { user_id: string }).user_id);
    throw errors.passkeyNotFound();
  });
}

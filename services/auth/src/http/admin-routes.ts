/**
 * The admin API (/admin/users, /admin/generate_link) and POST /invite: each route checks the
 * admin token, reads the wire format and calls the domain.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type AdminActor, authenticateAdmin, INVITE_ROLES } from "../domain/admin-auth.js";
import {
  type AdminUserInput,
  createUserAsAdmin,
  deleteUserAsAdmin,
  getUserById,
  listUsersPage,
  updateUserAsAdmin,
} from "../domain/admin-users.js";
import { errors } from "../domain/errors.js";
import { generateLink, inviteUser, type RedirectHints } from "../domain/links.js";
import type { AuthService } from "../domain/service.js";
import { encodeValues } from "../domain/url-encoding.js";
import { adminUserBody, generateLinkBody, inviteBody } from "./admin-schemas.js";
import { requestMeta } from "./request-meta.js";
import { field } from "./schemas.js";

type Body = Record<string, unknown>;

const str = (value: unknown): string | undefined => field(value as string | null | undefined);
const obj = (value: unknown) => field(value as Record<string, unknown> | null | undefined);
const bool = (value: unknown) => field(value as boolean | null | undefined);

function adminUserInput(body: Body): AdminUserInput {
  return {
    id: str(body.id),
    aud: str(body.aud),
    role: str(body.role),
    email: str(body.email),
    phone: str(body.phone),
    password: str(body.password),
    passwordHash: str(body.password_hash),
    emailConfirm: bool(body.email_confirm),
    phoneConfirm: bool(body.phone_confirm),
    userMetadata: obj(body.user_metadata),
    appMetadata: obj(body.app_metadata),
    banDuration: str(body.ban_duration),
  };
}

/** The request's query as (key, value) pairs, in order. */
export function queryPairs(request: FastifyRequest): [string, string][] {
  const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
  return [...new URLSearchParams(search)];
}

const first = (pairs: [string, string][], key: string) => pairs.find(([k]) => k === key)?.[1];

/** GoTrue's pagination headers: `Link` with rel next (when there is a next page) and rel last, and `X-Total-Count`. */
function paginationHeaders(request: FastifyRequest, reply: FastifyReply, page: number, perPage: number, total: number) {
  const pages = Math.ceil(total / perPage);
  const path = request.url.split("?")[0] as string;
  const pairs = queryPairs(request).filter(([key]) => key !== "page");
  const link = (target: number) => `<${path}?${encodeValues([...pairs, ["page", String(target)]])}>`;
  let header = "";
  if (pages > page) header += `${link(page + 1)}; rel="next", `;
  header += `${link(pages)}; rel="last"`;
  reply.header("link", header);
  reply.header("x-total-count", String(total));
}

/** The `redirect_to` the request names (header or query parameter, as GoTrue reads it) and its Referer. */
export function redirectHints(request: FastifyRequest): RedirectHints {
  const header = request.headers.redirect_to;
  const fromHeader = typeof header === "string" && header !== "" ? header : undefined;
  return { redirectTo: fromHeader ?? first(queryPairs(request), "redirect_to"), referer: request.headers.referer };
}

export function registerAdminRoutes(app: FastifyInstance, service: AuthService): void {
  const deps = service.deps;
  const meta = (request: FastifyRequest) => requestMeta(request, service.config);
  const admin = (request: FastifyRequest, extraRoles: readonly string[] = []): Promise<AdminActor> =>
    authenticateAdmin(deps, request.headers.authorization, extraRoles);
  const userId = (request: FastifyRequest) => (request.params as { user_id: string }).user_id;

  app.get("/admin/users", async (request, reply) => {
    await admin(request);
    const pairs = queryPairs(request);
    const page = await listUsersPage(deps, meta(request), {
      page: first(pairs, "page"),
      perPage: first(pairs, "per_page"),
      filter: first(pairs, "filter"),
      sort: pairs.some(([key]) => key === "sort") ? pairs.filter(([key]) => key === "sort").map(([, value]) => value) : undefined,
    });
    paginationHeaders(request, reply, page.page, page.perPage, page.total);
    return { users: page.users, aud: page.aud };
  });

  app.post("/admin/users", { schema: { body: adminUserBody } }, async (request) => {
    const actor = await admin(request);
    return createUserAsAdmin(deps, meta(request), actor, adminUserInput(request.body as Body));
  });

  // GoTrue's README documents creating a user under a chosen id this way.
  app.post("/admin/users/:user_id", { schema: { body: adminUserBody } }, async (request) => {
    const actor = await admin(request);
    return createUserAsAdmin(deps, meta(request), actor, { ...adminUserInput(request.body as Body), id: userId(request) });
  });

  app.get("/admin/users/:user_id", async (request) => {
    await admin(request);
    return getUserById(deps, userId(request));
  });

  app.put("/admin/users/:user_id", { schema: { body: adminUserBody } }, async (request) => {
    const actor = await admin(request);
    const { id: _id, aud: _aud, passwordHash: _hash, ...input } = adminUserInput(request.body as Body);
    return updateUserAsAdmin(deps, meta(request), actor, userId(request), input);
  });

  // The body is optional here (GoTrue reads it only when there is one), so it is checked by hand.
  app.delete("/admin/users/:user_id", async (request) => {
    const actor = await admin(request);
    const body = request.body ?? {};
    const soft = typeof body === "object" && !Array.isArray(body) ? (body as Body).should_soft_delete : body;
    if (soft !== undefined && soft !== null && typeof soft !== "boolean") throw errors.badJson("body/should_soft_delete must be boolean");
    return deleteUserAsAdmin(deps, meta(request), actor, userId(request), soft === true);
  });

  app.post("/admin/generate_link", { schema: { body: generateLinkBody } }, async (request) => {
    const actor = await admin(request);
    const body = request.body as Body;
    return generateLink(
      deps,
      meta(request),
      actor,
      {
        type: str(body.type),
        email: str(body.email),
        newEmail: str(body.new_email),
        password: str(body.password),
        data: obj(body.data),
        redirectTo: str(body.redirect_to),
      },
      redirectHints(request),
    );
  });

  app.post("/invite", { schema: { body: inviteBody } }, async (request) => {
    const actor = await admin(request, INVITE_ROLES);
    const body = request.body as Body;
    return inviteUser(deps, meta(request), actor, { email: str(body.email), data: obj(body.data) }, redirectHints(request));
  });
}

/**
 * Multi-factor authentication routes as GoTrue serves them (supabase/auth internal/api/api.go):
 * /factors for the signed-in user (not anonymous) and /admin/users/{id}/factors for admins.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { authenticateAdmin } from "../domain/admin-auth.js";
import { loadUser } from "../domain/admin-users.js";
import { errors } from "../domain/errors.js";
import { challengeFactor } from "../domain/mfa/challenge.js";
import { enrollFactor } from "../domain/mfa/enroll.js";
import { adminDeleteFactor, adminListFactors, adminUpdateFactor, ownedFactor, unenrollFactor } from "../domain/mfa/unenroll.js";
import { verifyFactor } from "../domain/mfa/verify.js";
import type { AuthService } from "../domain/service.js";
import { requestMeta } from "./request-meta.js";
import { field } from "./schemas.js";

const text = { type: ["string", "null"] } as const;
const body = (properties: Record<string, unknown>) => ({ type: "object", properties, additionalProperties: true }) as const;

const enrollBody = body({ factor_type: text, friendly_name: text, issuer: text, phone: text });
const challengeBody = body({ channel: text });
const verifyBody = body({ challenge_id: text, code: text });
const factorUpdateBody = body({ friendly_name: text, phone: text });

type Body = Record<string, string | null | undefined>;
type Params = { factor_id: string; user_id: string };

export function registerFactorRoutes(app: FastifyInstance, service: AuthService): void {
  const deps = service.deps;
  const meta = (request: FastifyRequest) => requestMeta(request, service.config);
  const bodyOf = (request: FastifyRequest) => (request.body ?? {}) as Body;
  const params = (request: FastifyRequest) => request.params as Params;

  /** GoTrue's requireAuthentication and requireNotAnonymous. */
  const signedIn = async (request: FastifyRequest) => {
    const auth = await service.authenticate(meta(request), request.headers.authorization);
    if (auth.claims.is_anonymous === true) throw errors.anonymousNotAllowed();
    return auth;
  };
  /** The signed-in user's factor named in the path (GoTrue's loadFactor). */
  const withFactor = async (request: FastifyRequest) => {
    const auth = await signedIn(request);
    return { auth, factor: await ownedFactor(deps.db, deps, auth.user.id, params(request).factor_id) };
  };

  app.post("/factors", { schema: { body: enrollBody } }, async (request) => {
    const input = bodyOf(request);
    return enrollFactor(deps, meta(request), await signedIn(request), {
      factorType: field(input.factor_type),
      friendlyName: field(input.friendly_name),
      issuer: field(input.issuer),
      phone: field(input.phone),
    });
  });

  app.post("/factors/:factor_id/challenge", { schema: { body: challengeBody } }, async (request) => {
    const { auth, factor } = await withFactor(request);
    return challengeFactor(deps, meta(request), auth.user, factor, field(bodyOf(request).channel));
  });

  app.post("/factors/:factor_id/verify", { schema: { body: verifyBody } }, async (request) => {
    const { auth, factor } = await withFactor(request);
    const input = bodyOf(request);
    return verifyFactor(deps, meta(request), auth, factor, { challengeId: field(input.challenge_id), code: field(input.code) });
  });

  app.delete("/factors/:factor_id", async (request) => {
    const { auth, factor } = await withFactor(request);
    return unenrollFactor(deps, meta(request), auth, factor);
  });

  const admin = (request: FastifyRequest) => authenticateAdmin(deps, request.headers.authorization);

  app.get("/admin/users/:user_id/factors", async (request) => {
    await admin(request);
    return adminListFactors(deps, await loadUser(deps.db, deps, params(request).user_id));
  });

  app.put("/admin/users/:user_id/factors/:factor_id", { schema: { body: factorUpdateBody } }, async (request) => {
    const actor = await admin(request);
    const user = await loadUser(deps.db, deps, params(request).user_id);
    const input = bodyOf(request);
    const change = { friendlyName: field(input.friendly_name), phone: field(input.phone) };
    return adminUpdateFactor(deps, meta(request), actor.auditActor, user, params(request).factor_id, change);
  });

  app.delete("/admin/users/:user_id/factors/:factor_id", async (request) => {
    const actor = await admin(request);
    const user = await loadUser(deps.db, deps, params(request).user_id);
    return adminDeleteFactor(deps, meta(request), actor.auditActor, user, params(request).factor_id);
  });
}

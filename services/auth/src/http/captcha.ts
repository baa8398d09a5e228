/**
 * Captcha protection (supabase/auth internal/api/middleware.go verifyCaptcha, and the routes that
 * use it in internal/api/api.go): with SECURITY_CAPTCHA_ENABLED, POST /signup (anonymous sign-ups
 * too), /recover, /resend, /magiclink, /otp and /token need a `gotrue_meta_security.captcha_token`
 * the provider accepts. /token is exempt for grant_type pkce, refresh_token and id_token (GoTrue's
 * isIgnoreCaptchaRoute; every other grant type is checked). A caller with admin credentials
 * (GoTrue's requireAdminCredentials: a service_role key, say) is never checked.
 *
 * The check runs once the body is parsed, before the route's schema validation and handler, as
 * GoTrue's middleware runs before the handler reads its parameters. Relative to the request
 * limits (route-limits.ts) the order is GoTrue's too: the RATE_LIMIT_OTP limits of /otp,
 * /magiclink, /recover and /resend are taken before it (on request), the /signup limit and the
 * /token limit after it.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { authenticateAdmin } from "../domain/admin-auth.js";
import { verifyCaptcha } from "../domain/captcha.js";
import { AuthError, errors } from "../domain/errors.js";
import type { AuthService } from "../domain/service.js";
import { requestMeta } from "./request-meta.js";

const GUARDED = new Set(["/signup", "/recover", "/resend", "/magiclink", "/otp", "/token"]);
const EXEMPT_GRANTS = new Set(["pkce", "refresh_token", "id_token"]);

function guarded(request: FastifyRequest): boolean {
  const path = request.routeOptions.url;
  if (request.method !== "POST" || path === undefined || !GUARDED.has(path)) return false;
  if (path !== "/token") return true;
  const grant = (request.query as Record<string, unknown> | undefined)?.grant_type;
  const first = Array.isArray(grant) ? grant[0] : grant;
  return !(typeof first === "string" && EXEMPT_GRANTS.has(first));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The trimmed captcha token ("" when there is none). GoTrue decodes the body into
 * `{gotrue_meta_security: {captcha_token: string}}`, so a value of another type is bad JSON there;
 * null reads as absent.
 */
export function captchaToken(body: unknown): string {
  if (!isObject(body)) throw errors.badJson("body must be object");
  const security = body.gotrue_meta_security;
  if (security === undefined || security === null) return "";
  if (!isObject(security)) throw errors.badJson("body/gotrue_meta_security must be object");
  const token = security.captcha_token;
  if (token === undefined || token === null) return "";
  if (typeof token !== "string") throw errors.badJson("body/gotrue_meta_security/captcha_token must be string");
  return token.trim();
}

/** Whether the request carries admin credentials, decided as the admin API decides it. */
async function isAdmin(service: AuthService, request: FastifyRequest): Promise<boolean> {
  if (request.headers.authorization === undefined) return false;
  try {
    await authenticateAdmin(service.deps, request.headers.authorization);
    return true;
  } catch (error) {
    if (error instanceof AuthError) return false;
    throw error;
  }
}

export function registerCaptcha(app: FastifyInstance, service: AuthService): void {
  const settings = service.config.captcha;
  if (!settings.enabled) return;
  app.addHook("preValidation", async (request) => {
    if (!guarded(request) || (await isAdmin(service, request))) return;
    const token = captchaToken(request.body);
    if (token === "") throw errors.captchaTokenMissing();
    await verifyCaptcha(settings, token, requestMeta(request, service.config).ip);
  });
}

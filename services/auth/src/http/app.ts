/**
 * The auth service's Fastify app: GoTrue's error shapes (switched by X-Supabase-Api-Version,
 * which is echoed back), JSON bodies whatever the content type, CORS, and the routes.
 */
import { createHttpApp, instrumentHttp, type Logger, type Telemetry } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { errors } from "../domain/errors.js";
import type { AuthService } from "../domain/service.js";
import type { Mailbox } from "../mail/delivery.js";
import { registerAdminRoutes } from "./admin-routes.js";
import { registerJsonBodies } from "./body.js";
import { registerCaptcha } from "./captcha.js";
import { registerCors } from "./cors.js";
import { registerDisabledRoutes } from "./disabled-routes.js";
import { API_VERSION_HEADER, MAX_BODY_BYTES, mapFrameworkError, renderError, renderInternal, requestedApiVersion } from "./errors.js";
import { registerExternalRoutes } from "./external-routes.js";
import { registerFactorRoutes } from "./factor-routes.js";
import { registerMailCatcherRoutes } from "./mail-catcher-routes.js";
import type { Limiter } from "./rate-limit.js";
import { type RouteLimits, registerRouteLimits } from "./route-limits.js";
import { registerRoutes } from "./routes.js";
import { registerVerifyRoutes } from "./verify-routes.js";

export interface HttpOptions {
  logger: Logger;
  tokenLimiter: Limiter;
  /** RATE_LIMIT_VERIFY and RATE_LIMIT_OTP, by route (route-limits.ts). */
  routeLimits: RouteLimits;
  /** Incoming header whose (sane) value becomes the request id; x-request-id when unset. */
  requestIdHeader?: string | undefined;
  /** Traces and metrics of every request (a no-op unless TRACING_ENABLED or METRICS_ENABLED). */
  telemetry?: Telemetry | undefined;
  /** The local start's mail catcher, shown under /_mail. */
  mailCatcher?: Mailbox | undefined;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function buildHttpApp(service: AuthService, options: HttpOptions): FastifyInstance {
  const idHeader = options.requestIdHeader ?? "x-request-id";
  const app = createHttpApp({
    logger: options.logger,
    renderError,
    renderInternal,
    mapFrameworkError,
    fastify: {
      bodyLimit: MAX_BODY_BYTES,
      // The trusted client address comes from the configured header, never from X-Forwarded-For by default.
      trustProxy: false,
      ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } },
      genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
        const incoming = req.headers[idHeader];
        return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      },
    },
  });
  if (options.telemetry) instrumentHttp(app, options.telemetry);
  registerJsonBodies(app);
  registerCors(app);
  app.addHook("onRequest", async (request, reply) => {
    const version = requestedApiVersion(request);
    if (version) reply.header(API_VERSION_HEADER, version);
  });
  // A failure GoTrue would answer (an error handler reply) carries its code in x-sb-error-code;
  // unexpected failures get it here.
  app.addHook("onSend", async (_request, reply, payload) => {
    if (reply.statusCode >= 500 && !reply.hasHeader("x-sb-error-code")) reply.header("x-sb-error-code", "unexpected_failure");
    return payload;
  });
  // PostgreSQL text cannot hold NUL; bodies are checked as they are parsed (body.ts), queries here.
  app.addHook("preValidation", async (request) => {
    const values = Object.values((request.query ?? {}) as Record<string, unknown>).flat();
    if (values.some((value) => typeof value === "string" && value.includes("\0"))) {
      throw errors.validation("Query parameters may not contain NUL (\\u0000) characters");
    }
  });
  registerRouteLimits(app, service.config, options.routeLimits);
  registerCaptcha(app, service);
  registerRoutes(app, service, options.tokenLimiter);
  registerAdminRoutes(app, service);
  registerFactorRoutes(app, service);
  registerVerifyRoutes(app, service);
  registerExternalRoutes(app, service);
  registerDisabledRoutes(app, service);
  if (options.mailCatcher) registerMailCatcherRoutes(app, options.mailCatcher);
  app.setNotFoundHandler(async () => {
    throw errors.notFound();
  });
  return app;
}

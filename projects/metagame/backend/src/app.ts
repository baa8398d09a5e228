/**
 * The backend's HTTP surface, laid out as MetaGame's: `GET /auth-webhook`, `POST /actions/...`,
 * `POST /triggers`, `POST /remote-schemas/graphql`, and `GET /` / `/healthz` answering "ok".
 * Each part registers its own routes (and its own close hooks) from the shared dependencies.
 */
import { createHttpApp, type Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { registerActions } from "./actions/routes.js";
import type { BackendConfig } from "./config.js";
import type { EngineClient } from "./engine-client.js";
import { BackendError } from "./errors.js";
import type { ProfileQueue } from "./queue/index.js";
import { registerRemoteSchema } from "./remote/routes.js";
import { registerTriggers } from "./triggers/routes.js";
import { registerAuthWebhook } from "./webhook/routes.js";

export interface BackendDeps {
  config: BackendConfig;
  logger: Logger;
  /** The engine, called as admin. */
  engine: EngineClient;
  /** For calls to third-party services (BrightID, JSON-RPC, Discord, the profile source). */
  fetch: typeof fetch;
  /** Profile-cache refreshes (updateIDXProfile, the cacheIDXProfile trigger, a new player). */
  profileQueue: ProfileQueue;
}

export async function buildBackendApp(deps: BackendDeps): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger: deps.logger,
    renderError: (error) => ({
      status: error.status,
      body: { message: error.message, extensions: { code: error.code } },
    }),
    renderInternal: (id) => ({ message: `internal error (id ${id})`, extensions: { code: "unexpected" } }),
    probePaths: ["/", "/healthz"],
  });
  const ok = async () => "ok";
  app.get("/", ok);
  app.get("/healthz", ok);
  await registerAuthWebhook(app, deps);
  await registerActions(app, deps);
  await registerTriggers(app, deps);
  await registerRemoteSchema(app, deps);
  return app;
}

export { BackendError };

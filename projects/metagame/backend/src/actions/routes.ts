import type { FastifyInstance } from "fastify";
import type { BackendDeps } from "../app.js";

export async function registerActions(_app: FastifyInstance, _deps: BackendDeps): Promise<void> {}

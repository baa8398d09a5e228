import type { FastifyInstance } from "fastify";
import type { BackendDeps } from "../app.js";

export async function registerTriggers(_app: FastifyInstance, _deps: BackendDeps): Promise<void> {}

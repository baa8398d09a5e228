/** Starts the backend from its configuration; used by main.ts, `npm start` and the tests. */
import { type Database, type Logger, openDatabase } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { buildBackendApp } from "./app.js";
import type { BackendConfig } from "./config.js";
import { createEngineClient } from "./engine-client.js";
import { createProfileQueue, type ProfileQueue } from "./queue/index.js";

export interface RunningBackend {
  url: string;
  app: FastifyInstance;
  /**
   * Resolves once the job queue has started; rejects when it could not (its database is
   * unreachable). The routes answer before that: a job queued meanwhile waits for the queue.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface BackendOptions {
  /**
   * The engine's database, when the caller has it open or is opening it (npm start's shared
   * embedded database): the routes are built and listening while it opens.
   */
  db?: Database | Promise<Database>;
  fetch?: typeof fetch;
}

export async function startBackend(config: BackendConfig, logger: Logger, options: BackendOptions = {}): Promise<RunningBackend> {
  const ownDb = options.db === undefined;
  const opening = Promise.resolve(
    options.db ?? openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir }),
  );
  const fetchImpl = options.fetch ?? fetch;
  // The queue starts once the database is there, unless the backend was closed before that (npm
  // start hands the database over only once the other services have started).
  let closing = false;
  let dbArrived = false;
  const queueStarting = opening.then((db) => {
    dbArrived = true;
    if (closing) throw new Error("the backend was closed before its job queue started");
    return createProfileQueue({ config, logger, db, fetch: fetchImpl });
  });
  // Reported through ready() (and by a job that waits for the queue), never as an unhandled rejection.
  queueStarting.catch(() => {});
  // The queue as the routes see it while it starts: a job waits for it.
  const profileQueue: ProfileQueue = {
    enqueue: async (playerId) => (await queueStarting).enqueue(playerId),
    async close() {
      closing = true;
      if (dbArrived) await (await queueStarting.catch(() => undefined))?.close();
    },
  };
  const closeOwnDb = async () => {
    if (ownDb) await (await opening.catch(() => undefined))?.close();
  };
  try {
    const app = await buildBackendApp({
      config,
      logger,
      engine: createEngineClient(config.graphqlUrl, config.adminSecret, fetchImpl),
      fetch: fetchImpl,
      profileQueue,
    });
    const url = await app.listen({ host: config.host, port: config.port });
    return {
      url,
      app,
      ready: () => queueStarting.then(() => undefined),
      async close() {
        await app.close();
        await profileQueue.close();
        await closeOwnDb();
      },
    };
  } catch (error) {
    await profileQueue.close();
    await closeOwnDb();
    throw error;
  }
}

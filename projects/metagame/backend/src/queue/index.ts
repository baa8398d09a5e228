import type { Database, Logger } from "@platform/core";
import type { BackendConfig } from "../config.js";
import type { ProfileQueue } from "./profile-queue.js";

export type { ProfileQueue } from "./profile-queue.js";

export interface QueueDeps {
  config: BackendConfig;
  logger: Logger;
  db: Database;
  fetch: typeof fetch;
}

/** Placeholder until the PostgreSQL-backed queue lands: remembers pending players in this process only. */
export async function createProfileQueue(_deps: QueueDeps): Promise<ProfileQueue> {
  const pending = new Set<string>();
  return {
    async enqueue(playerId) {
      if (pending.has(playerId)) return false;
      pending.add(playerId);
      return true;
    },
    async close() {},
  };
}

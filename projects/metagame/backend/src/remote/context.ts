/** What every resolver of the remote schema gets: the backend's dependencies and a per-request memo. */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../app.js";
import { type DiscordApi, discordApi } from "./discord-rest.js";

export interface RemoteContext {
  deps: BackendDeps;
  log: FastifyBaseLogger;
  /** The bot's Discord client; null when no bot token is configured. */
  discord: DiscordApi | null;
  /**
   * One load per key within a request: the engine joins many rows into this schema in one
   * request (one aliased field per row), and those rows often share a Discord server.
   */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
}

export function createRemoteContext(deps: BackendDeps, log: FastifyBaseLogger): RemoteContext {
  const loads = new Map<string, Promise<unknown>>();
  return {
    deps,
    log,
    discord: discordApi(deps.config, deps.fetch),
    memo<T>(key: string, load: () => Promise<T>): Promise<T> {
      let pending = loads.get(key) as Promise<T> | undefined;
      if (!pending) {
        pending = load();
        loads.set(key, pending);
      }
      return pending;
    },
  };
}

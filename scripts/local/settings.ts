/**
 * `npm start`'s own settings: where its data lives, how it logs, and how the GraphQL engine
 * authenticates the auth service's users (the MetaGame backend's webhook, or JWT mode). Read before anything else
 * (this module needs nothing but core), so the embedded database can start opening while the
 * services load.
 */
import { resolve } from "node:path";
import { type Env, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function readStartSettings(env: Env, cwd = process.cwd()) {
  const settings = readConfig(env, {
    dataDir: string("PLATFORM_DATA_DIR", "./data"),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "auto"),
    graphqlAuth: oneOf("METAGAME_AUTH", ["webhook", "jwt"] as const, "webhook"),
  });
  return { ...settings, dataDir: resolve(cwd, settings.dataDir) };
}

export type StartSettings = ReturnType<typeof readStartSettings>;

/**
 * Where the project's Hasura files are, and the engine settings that serve the project with this
 * backend at `backendUrl`: the variables MetaGame's Hasura image sets from its backend's address
 * (ACTION_BASE_ENDPOINT, REMOTE_SCHEMA_ENDPOINT, TRIGGERS_ENDPOINT, HASURA_GRAPHQL_AUTH_HOOK), the
 * migrations and metadata directories, and v1 null-collapse in boolean expressions, which
 * MetaGame's client relies on.
 */
import { fileURLToPath } from "node:url";

export const HASURA_DIR = fileURLToPath(new URL("../../hasura/", import.meta.url));
export const MIGRATIONS_DIR = `${HASURA_DIR}migrations`;
export const METADATA_DIR = `${HASURA_DIR}metadata`;

export interface EngineEnvOptions {
  /** Authenticate through the backend's webhook (default), or leave auth to the caller's settings (JWT mode). */
  webhook?: boolean;
}

export function metagameEngineEnv(backendUrl: string, options: EngineEnvOptions = {}): Record<string, string> {
  const base = backendUrl.replace(/\/+$/, "");
  return {
    HASURA_GRAPHQL_MIGRATIONS_DIR: MIGRATIONS_DIR,
    HASURA_GRAPHQL_METADATA_DIR: METADATA_DIR,
    HASURA_GRAPHQL_V1_BOOLEAN_NULL_COLLAPSE: "true",
    ACTION_BASE_ENDPOINT: `${base}/actions`,
    REMOTE_SCHEMA_ENDPOINT: `${base}/remote-schemas/graphql`,
    TRIGGERS_ENDPOINT: `${base}/triggers`,
    ...(options.webhook === false ? {} : { HASURA_GRAPHQL_AUTH_HOOK: `${base}/auth-webhook` }),
  };
}

export { type BackendDeps, buildBackendApp } from "./app.js";
export { type BackendConfig, readBackendConfig } from "./config.js";
export { type EngineEnvOptions, HASURA_DIR, METADATA_DIR, MIGRATIONS_DIR, metagameEngineEnv } from "./project.js";
export { type BackendOptions, type RunningBackend, startBackend } from "./server.js";

/**
 * The engine's error catalogue. Every Hasura error the engine answers (code, message wording,
 * JSON path, HTTP status) is made by one named factory in errors/, grouped by area, each with
 * the Hasura source or docs it follows:
 *   errors/hasura-error.ts     the HasuraError class, codes (Hasura's server/src-lib/Hasura/Base/Error.hs), jsonPath
 *   errors/request.ts          the HTTP body, the operation, GraphQL validation
 *   errors/values.ts           argument values: literals, variables, the schema's argument parsers, mutations
 *   errors/permissions.ts      session variables, missing permissions, admin-only endpoints
 *   errors/metadata.ts         metadata API: sources, tables, functions, permissions, relationships
 *   errors/metadata-unserved.ts  metadata API for kept-but-unserved objects (remote schemas, actions, triggers...)
 *   errors/database.ts         PostgreSQL errors, run_sql, enum tables, catalog set-up
 *   errors/auth.ts             admin secret, JWT, JWKS, webhook
 *   errors/actions.ts          action handlers' answers and failures
 *   errors/limits.ts           API limits and the time limit
 *   errors/remote.ts           remote schemas: fetching, calling, their definitions and consistency
 *   errors/internal.ts         faults of the engine itself
 * Code outside this folder throws factory results; it never builds a HasuraError itself.
 */
export * from "./errors/actions.js";
export * from "./errors/auth.js";
export * from "./errors/database.js";
export * from "./errors/hasura-error.js";
export * from "./errors/internal.js";
export * from "./errors/limits.js";
export * from "./errors/metadata.js";
export * from "./errors/metadata-unserved.js";
export * from "./errors/permissions.js";
export * from "./errors/remote.js";
export * from "./errors/request.js";
export * from "./errors/values.js";

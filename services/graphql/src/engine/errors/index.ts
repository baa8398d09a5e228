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
 *   errors/transforms.ts       request and response transforms (REST connectors)
 *   errors/remote.ts           remote schemas: fetching, calling, their definitions and consistency
 *   errors/internal.ts         faults of the engine itself
 * Code outside this folder throws factory results; it never builds a HasuraError itself.
 */
export * from "./actions.js";
export * from "./auth.js";
export * from "./database.js";
export * from "./hasura-error.js";
export * from "./internal.js";
export * from "./limits.js";
export * from "./metadata.js";
export * from "./metadata-unserved.js";
export * from "./permissions.js";
export * from "./remote.js";
export * from "./request.js";
export * from "./transforms.js";
export * from "./values.js";

export { type GraphqlConfig, readGraphqlConfig } from "./config.js";
export { introspect } from "./engine/catalog/introspect.js";
export { Engine } from "./engine/execute.js";
export type { Metadata } from "./engine/metadata/types.js";
export { buildModel } from "./engine/model/build.js";
export type { Session } from "./engine/request/session.js";
export { RoleSchemaBuilder } from "./engine/schema/build.js";
export { createGraphql, type GraphqlOptions, openConfiguredDatabase, type RunningGraphql, startGraphql } from "./server.js";

export { type GraphqlConfig, readGraphqlConfig } from "./config.js";
export { Engine } from "./engine/execute.js";
export { createGraphql, type RunningGraphql, startGraphql } from "./server.js";

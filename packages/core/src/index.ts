export * from "./config.js";
export * from "./db/index.js";
export * from "./errors.js";
export * from "./http.js";
export * from "./logger.js";
export * from "./migrate.js";
export * from "./shutdown.js";
export * from "./sql.js";

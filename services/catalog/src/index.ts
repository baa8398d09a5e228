export { buildApp, type CatalogAppDeps } from "./app.js";
export { type CatalogConfig, readCatalogConfig } from "./config.js";
export { openCatalogSource } from "./db/open.js";
export { type CatalogSource, DEFAULT_SQLITE_CACHE_MB, openPostgresSource, openSqliteSource } from "./db/source.js";
export { type CatalogTarget, parseCatalogUrl } from "./db/url.js";
export { type EnsureDemoOptions, type EnsureDemoResult, ensureDemoCatalog } from "./demo/ensure.js";
export { DEMO_SIZE, type GenerateCounts, type GenerateOptions, generateCatalog } from "./demo/generate.js";
export { generateCatalogPostgres, type PostgresDemoOptions } from "./demo/postgres.js";
export { type RunningService, startCatalog } from "./server.js";

/**
 * `npm start`: every service of the platform in one process, on embedded defaults. Each
 * service's configuration is read first, so a bad setting anywhere stops start-up with one
 * message naming every problem. A missing SQLite catalog is replaced by a generated demo.
 */
import { existsSync } from "node:fs";
import { readAuthConfig, startAuth, withLocalDefaults } from "@platform/auth";
import { DEMO_SIZE, generateCatalog, readCatalogConfig, startCatalog } from "@platform/catalog";
import { type Closer, ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readGraphqlConfig, startGraphql } from "@platform/graphql";

const env = loadEnv();
const problems: string[] = [];
const read = <T>(readService: () => T): T | undefined => {
  try {
    return readService();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
};

// The auth service requires a few settings; on a fresh clone they get local-development values.
const authEnv = withLocalDefaults(env);
const catalogConfig = read(() => readCatalogConfig(env));
const authConfig = read(() => readAuthConfig(authEnv.env));
const graphqlConfig = read(() => readGraphqlConfig(env));
if (problems.length > 0 || !catalogConfig || !authConfig || !graphqlConfig) {
  console.error(new ConfigError(problems).message);
  process.exit(1);
}

const logger = createLogger({ level: catalogConfig.logLevel });
const closers: Closer[] = [];
handleShutdown(logger, closers);
if (authEnv.filled.length > 0) {
  logger.warn(
    { settings: authEnv.filled },
    "auth settings not configured: using local-development values (set them for any real deployment)",
  );
}

try {
  if (catalogConfig.database.kind === "sqlite" && !existsSync(catalogConfig.database.path)) {
    logger.info({ path: catalogConfig.database.path, ...DEMO_SIZE }, "no catalog database; generating a demo catalog");
    const counts = generateCatalog(catalogConfig.database.path, DEMO_SIZE);
    logger.info({ products: counts.products, snapshots: counts.snapshots, seconds: counts.seconds }, "demo catalog ready");
  }
  const catalog = await startCatalog(catalogConfig, logger.child({ service: "catalog" }));
  closers.push(() => catalog.close());
  const auth = await startAuth(authConfig, logger.child({ service: "auth" }));
  closers.push(() => auth.close());
  const graphql = await startGraphql(graphqlConfig, logger.child({ service: "graphql" }));
  closers.push(() => graphql.close());
  logger.info({ catalog: catalog.url, auth: auth.url, graphql: graphql.url }, "platform started");
} catch (error) {
  logger.fatal({ err: error }, "start-up failed");
  process.exit(1);
}

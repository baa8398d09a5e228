/** `npm run migrate -w services/auth`: applies the auth migrations and exits (re-running applies only new ones). */
import { ConfigError, createLogger, loadEnv } from "@platform/core";
import { readAuthDatabaseConfig } from "./config.js";
import { runMigrations } from "./db/migrations.js";
import { openAuthDatabase } from "./server.js";

// `npm run migrate -w services/auth` runs in the workspace folder; work from where npm was
// invoked instead, so `.env` and the default ./data/auth are the ones `npm start` uses.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

try {
  const config = readAuthDatabaseConfig(loadEnv());
  const logger = createLogger({ name: "auth" });
  const db = await openAuthDatabase(config, logger);
  try {
    const applied = await runMigrations(db, config.schema);
    logger.info({ applied }, applied.length > 0 ? "auth migrations applied" : "auth migrations up to date");
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

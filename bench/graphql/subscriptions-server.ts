/**
 * The GraphQL service as `npm run start:graphql` runs it, for the subscriptions bench, plus one
 * route of the bench's own, `GET /bench/statements`: how many statements the service has sent to
 * PostgreSQL (its runtime's counter), exact where PostgreSQL's own statistics lag by seconds; and
 * `GET /bench/heap`: process.memoryUsage() after a full collection.
 */
import { createLogger, handleShutdown, loadEnv } from "@platform/core";
import { createGraphql, readGraphqlConfig } from "@platform/graphql";

const config = readGraphqlConfig(loadEnv());
const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "graphql" });
const service = await createGraphql(config, logger);
service.app.get("/bench/statements", async () => ({ sent: service.runtime.statementsSent, subscribers: service.runtime.subscribers }));
// The heap after a full collection (the bench starts the process with --expose-gc).
service.app.get("/bench/heap", async () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage();
});
await service.app.listen({ host: config.host, port: config.port });
handleShutdown(logger, [() => service.close()]);

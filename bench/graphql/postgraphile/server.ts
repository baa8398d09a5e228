/**
 * PostGraphile v5 over the benchmark database, run by run.ts as its own process on Node 22
 * (PostGraphile needs >= 22; Node 22 runs this file directly by stripping its types).
 * Amber preset, simplify-inflection for Hasura-like names, connection-filter for the range
 * filter; the index-based hiding of filters/orderings is off, as our engine allows every column.
 *
 *   DATABASE_URL  PORT  POOL_SIZE
 */
import { createServer } from "node:http";
import { PgSimplifyInflectionPreset } from "@graphile/simplify-inflection";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PostGraphileConnectionFilterPreset } from "postgraphile-plugin-connection-filter";

const port = Number(process.env.PORT ?? 5678);
const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset, PostGraphileConnectionFilterPreset],
  disablePlugins: ["PgIndexBehaviorsPlugin"],
  pgServices: [
    makePgService({
      connectionString: process.env.DATABASE_URL,
      schemas: ["public"],
      poolConfig: { max: Number(process.env.POOL_SIZE ?? 32) },
    }),
  ],
  grafserv: { port, graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on("error", (error) => {
  console.error(error);
  process.exit(1);
});
serv.addTo(server).then(
  () => server.listen(port, "127.0.0.1"),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
const stop = () => {
  server.close();
  Promise.resolve(pgl.release()).finally(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

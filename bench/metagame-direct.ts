/**
 * The baseline of `metagame-profile.ts`, run as its own process:
 * `node --import tsx bench/metagame-direct.ts <port> <database url> <pool size>`.
 * A bare node:http server that does what any hand-written endpoint must: reads and parses the
 * POSTed JSON body, runs the one hand-written SQL statement (metagame-query.ts) with `pg` as a
 * named prepared statement on a pool as big as the engine's, and answers the JSON document the
 * engine would, `{"data":{"player":[...]}}` or `{"data":{"player_by_pk":{...}}}`. No GraphQL, no
 * permissions, no framework: the floor an HTTP service over this database cannot go below.
 *
 *   POST /username  body {"variables":{"username":"..."}}
 *   POST /id        body {"variables":{"id":"..."}}
 *   GET  /health
 */
import { createServer } from "node:http";
import pg from "pg";
import { BY_ID_SQL, BY_USERNAME_SQL } from "./metagame-query.js";

const [portText, databaseUrl, poolText] = process.argv.slice(2);
const port = Number(portText);
const poolSize = Number(poolText);
if (!Number.isInteger(port) || !databaseUrl || !Number.isInteger(poolSize))
  throw new Error("usage: metagame-direct.ts <port> <database url> <pool size>");

const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
const routes: Record<string, { name: string; text: string; field: string; variable: string; none: string }> = {
  "/username": { name: "profile_by_username", text: BY_USERNAME_SQL, field: "player", variable: "username", none: "[]" },
  "/id": { name: "profile_by_id", text: BY_ID_SQL, field: "player_by_pk", variable: "id", none: "null" },
};

function fail(res: import("node:http").ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ errors: [{ message }] }));
}

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/health") return res.end("OK");
  const route = req.method === "POST" ? routes[req.url ?? ""] : undefined;
  if (!route) return fail(res, 404, "not found");
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let value: unknown;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { variables?: Record<string, unknown> };
      value = body.variables?.[route.variable];
    } catch {
      return fail(res, 400, "the body is not JSON");
    }
    if (typeof value !== "string") return fail(res, 400, `variables.${route.variable} must be a string`);
    pool.query<{ json: string }>({ name: route.name, text: route.text, values: [value] }).then(
      (result) => {
        const json = result.rows[0]?.json ?? route.none;
        res.writeHead(200, { "content-type": "application/json" }).end(`{"data":{"${route.field}":${json}}}`);
      },
      (error: Error) => fail(res, 500, error.message),
    );
  });
});

server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));

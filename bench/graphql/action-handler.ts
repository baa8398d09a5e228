/**
 * The action handler of `action.ts`, run as its own process (`node --import tsx action-handler.ts
 * <port>`): a plain node:http server that reads the whole POST body, parses it as any handler must
 * to read its `input`, and answers one fixed output object at once (Hasura's handler contract:
 * https://hasura.io/docs/latest/actions/action-handlers/). It keeps the last body it was sent, byte
 * for byte, so the bench can replay exactly what the engine sends.
 *
 *   GET /last   the last POST body received (404 before the first)
 *   GET /count  `{requests, connections}`: POSTs answered, and connections that carried one (so
 *               keep-alive reuse shows; the bench's own GETs are not counted)
 */
import { createServer } from "node:http";
import type { Socket } from "node:net";

const OUTPUT = '{"sum":3}';
const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error("usage: action-handler.ts <port>");

let last: Buffer | null = null;
let count = 0;
let connections = 0;
const posting = new WeakSet<Socket>();

const server = createServer((req, res) => {
  if (req.method === "GET") {
    if (req.url === "/count") return res.end(JSON.stringify({ requests: count, connections }));
    if (req.url === "/last" && last) return res.writeHead(200, { "content-type": "application/json" }).end(last);
    return res.writeHead(404).end();
  }
  if (!posting.has(req.socket)) {
    posting.add(req.socket);
    connections += 1;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const payload = JSON.parse(body.toString("utf8")) as { action?: { name?: unknown } };
    last = body;
    count += 1;
    if (payload.action?.name === undefined)
      return res.writeHead(400, { "content-type": "application/json" }).end('{"message":"no action"}');
    res.writeHead(200, { "content-type": "application/json" }).end(OUTPUT);
  });
});

server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));

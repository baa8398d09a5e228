/**
 * A real HTTP server standing in for action handlers: each route answers what the test gives it
 * (a status and a body, or raw text), and every request it receives is recorded (method, path,
 * headers, the body's text and, when it is JSON, the parsed body) for the test to inspect.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body; `{}` when there is none or it is not JSON (see `text`). */
  body: Record<string, unknown>;
  text: string;
  /** The raw header list, names as sent (a header sent twice appears twice). */
  rawHeaders: string[];
}

function parsed(text: string): Record<string, unknown> {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

export type Answer = { status?: number; body?: unknown; raw?: string; delayMs?: number; headers?: Record<string, string> };
export type Route = (received: Received) => Answer | Promise<Answer>;

export interface HandlerServer {
  url: string;
  received: Received[];
  route(path: string, answer: Route): void;
  close(): Promise<void>;
}

export async function startHandlerServer(): Promise<HandlerServer> {
  const routes = new Map<string, Route>();
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const entry: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: parsed(text),
        text,
        rawHeaders: req.rawHeaders,
      };
      received.push(entry);
      const route = routes.get(entry.path) ?? routes.get(entry.path.replace(/\?.*$/s, ""));
      const answer = route ? await route(entry) : { status: 404, body: { message: "no such route" } };
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/json", ...answer.headers });
      res.end(answer.raw ?? JSON.stringify(answer.body ?? null));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    route: (path, answer) => routes.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

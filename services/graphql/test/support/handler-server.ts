/**
 * A real HTTP server standing in for action handlers: each route answers what the test gives it
 * (a status and a body, or raw text), and every request it receives is recorded (path, headers,
 * parsed body) for the test to inspect.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
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
      const entry: Received = { path: req.url ?? "", headers: req.headers, body: text ? JSON.parse(text) : {} };
      received.push(entry);
      const route = routes.get(entry.path);
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

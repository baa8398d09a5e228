/**
 * A real HTTP server standing in for a service: records each request and answers what the test
 * sets; WebSocket upgrades are accepted too (the first subprotocol offered), recorded, and each
 * message echoed back.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { WebSocketServer } from "ws";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export interface SeenSocket {
  url: string;
  headers: IncomingHttpHeaders;
  protocol: string;
}

export interface Upstream {
  url: string;
  seen: SeenRequest[];
  /** WebSocket upgrades that reached this service. */
  sockets: SeenSocket[];
  answer(next: Answer | ((request: SeenRequest) => Answer)): void;
  close(): Promise<void>;
}

export async function startUpstream(name: string): Promise<Upstream> {
  const seen: SeenRequest[] = [];
  let respond: (request: SeenRequest) => Answer = () => ({ body: JSON.stringify({ from: name }) });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(request);
      const answer = respond(request);
      const send = () => {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
        res.end(answer.body ?? JSON.stringify({ from: name, url: request.url }));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  const sockets: SeenSocket[] = [];
  const wss = new WebSocketServer({ server, handleProtocols: (offered) => offered.values().next().value ?? false });
  wss.on("connection", (ws, req) => {
    sockets.push({ url: req.url ?? "", headers: req.headers, protocol: ws.protocol });
    ws.on("message", (data) => ws.send(`echo: ${String(data)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    sockets,
    answer(next) {
      respond = typeof next === "function" ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

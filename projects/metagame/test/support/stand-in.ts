/**
 * A real HTTP server on 127.0.0.1 standing in for a third-party API (BrightID, Discord, a JSON-RPC
 * node, a subgraph, SourceCred): `answer` decides each response from the request, and every
 * request is kept in `received` so a test can assert what the backend sent.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";

export interface StandInRequest {
  method: string;
  /** Path and query, e.g. `/guilds/1/roles`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
}

export interface StandInAnswer {
  status?: number;
  /** Sent as JSON (a string is sent as it is). */
  body?: unknown;
  /** Wait this long before answering (to exercise timeouts). */
  delayMs?: number;
}

export interface StandIn {
  url: string;
  received: StandInRequest[];
  close(): Promise<void>;
}

function parsed(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startStandIn(answer: (request: StandInRequest) => StandInAnswer | Promise<StandInAnswer>): Promise<StandIn> {
  const received: StandInRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body: parsed(Buffer.concat(chunks).toString("utf8")),
      };
      received.push(request);
      try {
        const reply = await answer(request);
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (res.destroyed) return;
        const status = reply.status ?? 200;
        if (reply.body === undefined) return void res.writeHead(status).end();
        const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
        res.writeHead(status, { "content-type": "application/json" }).end(text);
      } catch (error) {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

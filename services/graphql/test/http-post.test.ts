/**
 * The handler client's kept-alive connections: a request on a reused connection that the server
 * drops before answering is sent again on a new one, as Hasura's HTTP client does
 * (http-client, Network/HTTP/Client/Core.hs, httpRaw); a request on a new connection is not.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PostFailure, postJson } from "../src/engine/executors/http-post.js";

/** A server that answers `{"ok":n}` and drops the connection, unanswered, for the requests `drop` picks. */
async function startServer(drop: (requestOnConnection: number) => boolean) {
  const counts = new Map<Socket, number>();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests += 1;
      const n = (counts.get(req.socket) ?? 0) + 1;
      counts.set(req.socket, n);
      if (drop(n)) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ok: requests }));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => counts.size,
    requests: () => requests,
  };
}

describe("postJson over kept-alive connections", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  });

  it("sends again on a new connection when a reused one is dropped before the answer", async () => {
    const handler = await startServer((n) => n === 2);
    server = handler.server;
    const first = await postJson(handler.url, {}, "{}", { timeoutMs: 5000 });
    expect(first.text).toBe('{"ok":1}');
    const second = await postJson(handler.url, {}, "{}", { timeoutMs: 5000 });
    expect(second.status).toBe(200);
    expect(second.text).toBe('{"ok":3}');
    expect(handler.connections()).toBe(2);
  });

  it("fails when a new connection is dropped before the answer", async () => {
    const handler = await startServer(() => true);
    server = handler.server;
    const failure = await postJson(handler.url, {}, "{}", { timeoutMs: 5000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PostFailure);
    expect((failure as PostFailure).message).toBe("socket hang up");
    expect(handler.requests()).toBe(1);
  });
});

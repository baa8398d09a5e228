/**
 * The engine's POSTs to action handlers and remote schemas reuse pooled keep-alive connections. A
 * server may close such a connection while it is idle (Node's own server does after 5 s): the next
 * request on it fails at once without reaching the server, and is sent again on a new connection.
 * A connection that fails after the server answered is not retried.
 */
import { createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PostFailure, postJson } from "../src/engine/executors/http-post.js";

const OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}";

/** A raw HTTP server: `answer(n)` for the n-th request on a connection says whether to answer it or drop the connection. */
async function rawServer(answer: (requestOnConnection: number) => boolean) {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let requests = 0;
    socket.on("data", (chunk: Buffer) => {
      if (!chunk.toString("latin1").includes("\r\n\r\n{")) return;
      requests++;
      if (answer(requests)) socket.write(OK);
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/`,
    connections: () => connections,
    /** Closes the server and the connections the engine's pool keeps open. */
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}

describe("postJson over pooled connections", () => {
  let server: { close(): Promise<void> } | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends a request again when the reused connection was closed before it arrived", async () => {
    const raw = await rawServer((n) => n === 1);
    server = raw;
    const first = await postJson(raw.url, {}, "{}", { timeoutMs: 5000 });
    expect(first.status).toBe(200);
    const second = await postJson(raw.url, {}, "{}", { timeoutMs: 5000 });
    expect(second.status).toBe(200);
    expect(raw.connections()).toBe(2);
  });

  it("reports a connection that fails on a fresh connection", async () => {
    const raw = await rawServer(() => false);
    server = raw;
    await expect(postJson(raw.url, {}, "{}", { timeoutMs: 5000 })).rejects.toBeInstanceOf(PostFailure);
    expect(raw.connections()).toBe(1);
  });
});

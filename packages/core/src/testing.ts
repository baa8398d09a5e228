/**
 * Test support. A database of its own for one test file: in-memory PGlite, or a fresh database on the
 * PostgreSQL server at `serverUrl` (what TEST_DATABASE_URL names in CI), dropped on dispose.
 */
import { randomBytes } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { type Database, openDatabase } from "./db/index.js";
import { ident, sql } from "./sql.js";

export interface ScratchDatabase {
  db: Database;
  /** The database's URL when it is on a server (for a process of its own to connect to); undefined on PGlite. */
  url?: string;
  dispose(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (admin: Database) => Promise<T>): Promise<T> {
  const admin = await openDatabase({ url: serverUrl, maxConnections: 1 });
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}

export async function openScratchDatabase(serverUrl: string | undefined, prefix = "test"): Promise<ScratchDatabase> {
  if (!serverUrl) {
    const db = await openDatabase({});
    return { db, dispose: () => db.close() };
  }
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await onServer(serverUrl, (admin) => admin.query(sql`CREATE DATABASE ${ident(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), maxConnections: 4 });
  return {
    db,
    url: url.toString(),
    async dispose() {
      await db.close();
      await onServer(serverUrl, (admin) => admin.query(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
    },
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago (for servers that need a port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface HttpSink {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers every request `200 {}` and keeps what it was sent:
 * a stand-in for a third-party receiver (an OTLP collector, a webhook) in tests.
 */
export async function startHttpSink(): Promise<HttpSink> {
  const received: ReceivedRequest[] = [];
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

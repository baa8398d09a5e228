/**
 * A socket's life in the log, as Hasura writes its websocket-log lines: `websocket` lines at info
 * for the socket accepted (its protocol and client address), each operation started (its id, name
 * and role) and ended (completed, failed or stopped), and the socket closed (code and reason), all
 * carrying the socket's id.
 */
import { Writable } from "node:stream";
import type { Logger } from "@platform/core";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { until } from "./support/inbox.js";
import { SECRET } from "./support/limits.js";
import { RawSocket, socketUrl } from "./support/ws.js";

type Line = Record<string, unknown>;

describe("websocket log lines", () => {
  const lines: Line[] = [];
  let handle: TestDatabase;
  let service: Awaited<ReturnType<typeof createGraphql>>;
  let url: string;
  beforeAll(async () => {
    handle = await openTestDatabase("pglite");
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Line);
        done();
      },
    });
    const config = readGraphqlConfig({ HASURA_GRAPHQL_ADMIN_SECRET: SECRET, HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000" });
    service = await createGraphql(config, pino({ level: "info" }, sink) as unknown as Logger, { db: handle.db });
    url = socketUrl(await service.app.listen({ host: "127.0.0.1", port: 0 }));
    const admin = async (url: string, payload: Record<string, unknown>) => {
      const answer = await service.app.inject({ method: "POST", url, headers: { "x-hasura-admin-secret": SECRET }, payload });
      expect(answer.statusCode, answer.body).toBe(200);
    };
    await admin("/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE notes (id int PRIMARY KEY)" } });
    await admin("/v1/metadata", { type: "pg_track_table", args: { table: "notes" } });
  });
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  const socketLines = (websocket: unknown) => lines.filter((line) => line.msg === "websocket" && line.websocket === websocket);

  it("logs the socket accepted, its operations and its close, under one id", async () => {
    const socket = new RawSocket(url, "graphql-transport-ws");
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: { "x-hasura-admin-secret": SECRET } } });
    await socket.next((frame) => frame.type === "connection_ack");
    socket.send({ id: "q", type: "subscribe", payload: { query: "query Named { __typename }", operationName: "Named" } });
    await socket.next((frame) => frame.type === "complete" && frame.id === "q");
    socket.send({ id: "bad", type: "subscribe", payload: { query: "{ nothing_here }" } });
    await socket.next((frame) => frame.type === "error" && frame.id === "bad");
    socket.send({ id: "s", type: "subscribe", payload: { query: "subscription { __typename }" } });
    await socket.next((frame) => frame.type === "error" && frame.id === "s");
    socket.send({ id: "live", type: "subscribe", payload: { query: "subscription { notes { id } }" } });
    await socket.next((frame) => frame.type === "next" && frame.id === "live");
    socket.send({ id: "live", type: "complete" });
    await until(() => lines.some((line) => line.operationId === "live" && line.type === "stopped"));
    socket.close();
    await socket.closed;

    const accepted = lines.find((line) => line.msg === "websocket" && line.event === "accepted");
    expect(accepted).toMatchObject({ level: 30, protocol: "graphql-transport-ws", ip: "127.0.0.1" });
    const id = accepted?.websocket;
    expect(typeof id).toBe("string");
    await until(() => socketLines(id).some((line) => line.event === "closed"));
    const events = socketLines(id).map(({ event, operationId, type, operationName, role, code }) =>
      JSON.parse(JSON.stringify({ event, operationId, type, operationName, role, code })),
    );
    expect(events).toEqual([
      { event: "accepted" },
      { event: "operation", operationId: "q", type: "started", operationName: "Named", role: "admin" },
      { event: "operation", operationId: "q", type: "completed" },
      { event: "operation", operationId: "bad", type: "started", role: "admin" },
      { event: "operation", operationId: "bad", type: "failed" },
      { event: "operation", operationId: "s", type: "started", role: "admin" },
      { event: "operation", operationId: "s", type: "failed" },
      { event: "operation", operationId: "live", type: "started", role: "admin" },
      { event: "operation", operationId: "live", type: "stopped" },
      { event: "closed", code: 1005 },
    ]);
  });
});

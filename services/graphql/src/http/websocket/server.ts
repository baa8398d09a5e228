/**
 * GraphQL over WebSocket on `/v1/graphql` (and the legacy `/v1alpha1/graphql`, whose answers over a
 * socket are the same), as Hasura serves it: the protocol is chosen by
 * `Sec-WebSocket-Protocol`, `graphql-transport-ws` (graphql-ws) when the client offers it, else
 * the legacy `graphql-ws` (subscriptions-transport-ws), which is also what a client naming no
 * protocol gets. Every socket is closed with 1012 when the served metadata changes (so a revoked
 * permission stops streaming at once) and when the server stops, after what was already queued
 * is sent; one whose client reads too slowly (more unsent bytes than the bound) is closed with
 * 1013 rather than buffered without end; a peer that stops answering WebSocket pings is dropped.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type WebSocket, WebSocketServer } from "ws";
import { clientAddress } from "../client-address.js";
import { Channel, type ChannelOptions } from "./channel.js";
import { CLOSE, Connection, type WebSocketApi } from "./connection.js";
import { serveLegacy } from "./legacy.js";
import { transportWsServer } from "./transport-ws.js";

export interface WebSocketOptions {
  /** Milliseconds between keep-alive messages (`ka`, or `ping`) and WebSocket pings (HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE, 5 s). */
  keepAliveMs: number;
  /** Milliseconds a client has to send `connection_init` (HASURA_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT, 3 s). */
  initTimeoutMs: number;
  /** Operations one socket may run at once. */
  maxOperations: number;
  /** Bytes a socket may have queued unsent before it is closed (a client that does not read). */
  maxBufferedBytes: number;
  /** Where sockets' lives are logged (`websocket` lines at info: accepted, each operation, closed) and failures. */
  logger: { info(details: object, message: string): void; error(details: object, message: string): void };
}

const PATHS = new Set(["/v1/graphql", "/v1alpha1/graphql"]);

/** `graphql-transport-ws` when offered, else the legacy protocol (also when none is named). */
function chooseProtocol(offered: Set<string>): string | false {
  if (offered.has("graphql-transport-ws")) return "graphql-transport-ws";
  if (offered.has("graphql-ws")) return "graphql-ws";
  return false;
}

function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(",") : value;
  return out;
}

export interface WebSockets {
  /** Closes every open socket with 1012 (Service Restart): the client reconnects. */
  restartAll(reason: string): void;
  readonly open: number;
}

/** The socket's channel, as `ws` calls its listeners (`this` is the socket). */
const channels = new WeakMap<WebSocket, Channel>();

function onPong(this: WebSocket): void {
  const channel = channels.get(this);
  if (channel) channel.alive = true;
}

export function registerWebSockets(app: FastifyInstance, api: WebSocketApi, options: WebSocketOptions): WebSockets {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: chooseProtocol });
  const sockets = new Set<Channel>();
  const channelOptions: ChannelOptions = {
    keepAliveMs: options.keepAliveMs,
    initTimeoutMs: options.initTimeoutMs,
    maxBufferedBytes: options.maxBufferedBytes,
    onError: (error: unknown) => options.logger.error({ err: error }, "unexpected failure serving a GraphQL WebSocket"),
  };
  const transportWs = transportWsServer(channelOptions);
  // One timer for every socket: WebSocket pings (a peer that answers none within an interval is
  // gone) and the protocols' keep-alive messages (Hasura's HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE).
  const heartbeat = setInterval(() => {
    for (const channel of sockets) channel.tick();
  }, options.keepAliveMs);
  heartbeat.unref();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? "").split("?")[0] ?? "";
    if (!PATHS.has(path)) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws, request));
  };

  const accept = (ws: WebSocket, request: IncomingMessage) => {
    const websocket = randomUUID();
    const ip = clientAddress({ headers: request.headers, ip: request.socket.remoteAddress ?? "" });
    const connection = new Connection(api, {
      maxOperations: options.maxOperations,
      ip,
      headers: lowerCaseHeaders(request),
      socket: ws,
      websocket,
      logger: options.logger,
    });
    const channel = new Channel(ws, connection, channelOptions);
    sockets.add(channel);
    channels.set(ws, channel);
    options.logger.info({ websocket, event: "accepted", protocol: ws.protocol, ip }, "websocket");
    ws.on("pong", onPong);
    ws.once("close", (code, reason) => {
      sockets.delete(channel);
      options.logger.info({ websocket, event: "closed", code, reason: String(reason) }, "websocket");
    });
    ws.on("error", channelOptions.onError);
    if (ws.protocol === "graphql-transport-ws") transportWs(channel);
    else serveLegacy(channel);
  };

  app.server.on("upgrade", onUpgrade);
  const restartAll = (reason: string) => {
    for (const { ws } of sockets) ws.close(CLOSE.restart, reason);
  };
  app.addHook("onClose", async () => {
    app.server.off("upgrade", onUpgrade);
    clearInterval(heartbeat);
    restartAll("the server is stopping");
    // Sockets whose clients do not answer the close within a keep-alive interval are dropped.
    const deadline = Date.now() + options.keepAliveMs;
    while (sockets.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const { ws } of sockets) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return {
    restartAll,
    get open() {
      return sockets.size;
    },
  };
}

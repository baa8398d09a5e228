/**
 * One open socket as both protocols use it: messages sent within the bound on unsent bytes (a
 * client that reads too slowly is closed with 1013 rather than buffered without end), and the
 * keep-alive message its protocol sends once the connection is acknowledged. The server's one
 * timer (server.ts) pings every socket and sends these keep-alives, so that an idle socket
 * holds no timer or closure of its own: at ten thousand subscribers, per-socket memory is what
 * bounds an instance.
 */
import { WebSocket } from "ws";
import { CLOSE, type Connection } from "./connection.js";

export interface ChannelOptions {
  /** Milliseconds between keep-alive messages and WebSocket pings. */
  keepAliveMs: number;
  /** Milliseconds a client has to send `connection_init`. */
  initTimeoutMs: number;
  /** Bytes a socket may have queued unsent before it is closed. */
  maxBufferedBytes: number;
  /** Logs an unexpected failure. */
  onError(error: unknown): void;
}

export class Channel {
  /** Answered the last WebSocket ping (or has just opened). */
  alive = true;
  /** What the protocol sends every keep-alive interval, once the connection is acknowledged. */
  keepAlive: string | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly connection: Connection,
    readonly options: ChannelOptions,
  ) {}

  /** Sends a message unless the client reads too slowly: then the socket is closed with 1013. */
  send(text: string): void {
    const { ws } = this;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > this.options.maxBufferedBytes) {
      ws.close(CLOSE.slowReader, "the client reads too slowly");
      // Its operations stop now, not when the close completes: nothing more is made for it.
      this.connection.close();
      // A client that does not read does not read the close frame either: it is dropped then.
      setTimeout(() => ws.terminate(), this.options.keepAliveMs).unref();
      return;
    }
    ws.send(text);
  }

  /** One keep-alive interval passed: a socket that did not answer the last ping is dropped, others are pinged. */
  tick(): void {
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    if (this.keepAlive !== undefined) this.send(this.keepAlive);
  }
}

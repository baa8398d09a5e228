/**
 * The legacy `graphql-ws` protocol of Apollo's subscriptions-transport-ws
 * (https://github.com/apollographql/subscriptions-transport-ws/blob/master/PROTOCOL.md), which
 * Hasura serves when the client names no subprotocol: `connection_init` answered by
 * `connection_ack` (then `ka` every keep-alive interval, never before the ack) or by
 * `connection_error` and a close with 4400 (as Hasura closes it); `start` answered by `data` messages (a query's or mutation's
 * one, then `complete`), a refusal by `error` (`{"errors": [...]}`) then `complete`; `stop` ends a
 * subscription and sends nothing; `connection_terminate` closes. A message that is not one of
 * these, or `stop` without an id, is answered `connection_error` and the socket stays open, as
 * Hasura answers it.
 */
import type { GraphQLRequest } from "../../engine/request/operation.js";
import type { Channel } from "./channel.js";
import type { OperationSink } from "./connection.js";

/** A message's text with `payload` already JSON text (an answer goes out as the engine wrote it). */
function message(type: string, id: string | undefined, payload?: string): string {
  const idPart = id === undefined ? "" : `,"id":${JSON.stringify(id)}`;
  return `{"type":${JSON.stringify(type)}${idPart}${payload === undefined ? "" : `,"payload":${payload}`}}`;
}

/** One operation's messages. */
class LegacySink implements OperationSink {
  constructor(
    private readonly channel: Channel,
    private readonly id: string,
  ) {}
  next(body: string): void {
    this.channel.send(message("data", this.id, body));
  }
  error(body: string): void {
    this.channel.send(message("error", this.id, body));
  }
  complete(): void {
    this.channel.send(message("complete", this.id));
  }
}

const KEEP_ALIVE = message("ka", undefined);

/** A close frame's reason: at most 123 bytes of UTF-8 (RFC 6455 section 5.5), cut on a character. */
export function closeReason(text: string): string {
  let out = text;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}

export function serveLegacy(channel: Channel): void {
  const { ws, connection, options } = channel;
  const send = (text: string) => channel.send(text);
  // Apollo's client sends its first `start`s right after `connection_init`, without waiting for
  // the ack: they wait for the authentication in flight.
  let initialising: Promise<unknown> | undefined;
  const initTimer = setTimeout(() => {
    if (!connection.initialised) ws.close(4408, "Connection initialisation timeout");
  }, options.initTimeoutMs);
  const connectionError = (text: string) => send(message("connection_error", undefined, JSON.stringify(text)));

  const onMessage = async (raw: string) => {
    let parsed: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      return connectionError("parsing ClientMessage failed: the message is not JSON");
    }
    if (parsed === null || typeof parsed !== "object") return connectionError("parsing ClientMessage failed: expected an object");
    const id = typeof parsed.id === "string" ? parsed.id : undefined;
    switch (parsed.type) {
      case "connection_init":
        try {
          initialising = connection.init(parsed.payload);
          await initialising;
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          connectionError(text);
          // Hasura's Apollo-protocol refusal (Hasura.GraphQL.Transport.WebSocket.Server
          // mkWSServerErrorCode): 4400, the reason naming the failure, within a close frame's 123 bytes.
          ws.close(4400, closeReason(`Connection initialization failed: ${text}`));
          return;
        }
        clearTimeout(initTimer);
        send(message("connection_ack", undefined));
        send(KEEP_ALIVE);
        // Then every keep-alive interval (the server's timer).
        channel.keepAlive = KEEP_ALIVE;
        return;
      case "start": {
        // A refused connection_init is answered in its own branch (connection_error, then closed);
        // here it only has to be over before the start is judged.
        await initialising?.catch(() => undefined);
        if (id === undefined) return connectionError('parsing ClientMessage failed: key "id" not found');
        if (!connection.initialised) return connectionError("start received before the connection was initialised");
        if (connection.has(id))
          return send(message("error", id, JSON.stringify({ errors: [{ message: `an operation already runs with id ${id}` }] })));
        const payload = (parsed.payload ?? {}) as GraphQLRequest;
        return connection.start(id, payload, new LegacySink(channel, id));
      }
      case "stop":
        if (id === undefined) return connectionError('parsing ClientMessage failed: key "id" not found');
        return connection.stop(id);
      case "connection_terminate":
        ws.close(1000, "Normal Closure");
        return;
      default:
        return connectionError(`parsing ClientMessage failed: unexpected type for ClientMessage: ${String(parsed.type)}`);
    }
  };

  ws.on("message", (data) => {
    onMessage(String(data)).catch(options.onError);
  });
  ws.once("close", () => {
    clearTimeout(initTimer);
    connection.close();
  });
}

/**
 * What both WebSocket protocols share for one socket: the session, authenticated from
 * `connection_init`'s payload as an HTTP request is from its headers (`headers: {...}`, or the
 * payload's own keys, over the upgrade request's headers, as Hasura reads them), closed when its
 * credentials expire (a JWT's `exp`, a webhook's `Expires`/`Cache-Control`); and its operations,
 * each started through the runtime (a subscription served until stopped, a query or a mutation
 * answered once), cancelled in PostgreSQL when the client completes it or the socket closes.
 * A socket may run a bounded number of operations at once.
 */
import { LightAbortController } from "@platform/core";
import type { ResolvedSession } from "../../engine/auth/session.js";
import { tooManyOperations } from "../../engine/errors/index.js";
import { errorBody, type Started } from "../../engine/execute.js";
import type { RequestContext } from "../../engine/limits/guard.js";
import type { GraphQLRequest } from "../../engine/request/operation.js";
import type { Session } from "../../engine/request/session.js";
import type { Subscriber } from "../../engine/subscriptions/poller.js";

export interface WebSocketApi {
  resolveSession(headers: Record<string, string | undefined>): Promise<ResolvedSession>;
  start(request: GraphQLRequest, session: Session, context: RequestContext, subscriber: Subscriber): Promise<Started>;
}

/** How an operation's answers go out: the protocol's messages for one operation id. */
export interface OperationSink {
  /** A subscription's answer, or a query's or mutation's (then `complete` follows). */
  next(body: string): void;
  /** An answer that failed (then `complete` follows). */
  error(body: string): void;
  complete(): void;
}

/** Close codes this server uses beyond the protocols' own. */
export const CLOSE = {
  /** The session's credentials expired (JWT `exp`, webhook expiry): the client may reconnect with new ones. */
  expired: 4403,
  /** Metadata changed, or the server stops: reconnect (RFC 6455's Service Restart). */
  restart: 1012,
  /** The client reads too slowly: its unsent messages passed the bound. */
  slowReader: 1013,
} as const;

export interface ConnectionOptions {
  /** Operations one socket may run at once. */
  maxOperations: number;
  /** The client's IP address (rate limits keyed on `IP`). */
  ip: string;
  /** The upgrade request's headers (lower-case names). */
  headers: Record<string, string>;
  /** The socket, closed with a code and reason when the session expires. */
  socket: { close(code: number, reason: string): void };
  /** The socket's id in the log. */
  websocket: string;
  /** Where each operation's start and end are logged. */
  logger: { info(details: object, message: string): void };
}

/** The headers of `connection_init`: its `headers` object, or its own keys, over the upgrade's (names lower-cased). */
export function initHeaders(payload: unknown, upgrade: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...upgrade };
  if (payload === null || typeof payload !== "object") return out;
  const object = payload as Record<string, unknown>;
  const given = object.headers !== null && typeof object.headers === "object" ? (object.headers as Record<string, unknown>) : object;
  for (const [name, value] of Object.entries(given)) if (typeof value === "string") out[name.toLowerCase()] = value;
  return out;
}

let operationIds = 0;

/** What a subscription's poller pushes to: an operation's sink (a class, not a closure per operation). */
class SinkSubscriber implements Subscriber {
  constructor(private readonly sink: OperationSink) {}
  push(body: string): void {
    this.sink.next(body);
  }
}

/** A subscription's stop before it has started. */
const NOT_STARTED = () => {};

export class Connection {
  private session: Session | undefined;
  private headers: Record<string, string> = {};
  private expiry: NodeJS.Timeout | undefined;
  private readonly operations = new Map<string, { stop(): void; controller: LightAbortController }>();
  private closed = false;

  constructor(
    private readonly api: WebSocketApi,
    private readonly options: ConnectionOptions,
  ) {}

  /** Authenticates `connection_init`'s payload; throws the engine's error when it is refused. */
  async init(payload: unknown): Promise<void> {
    const headers = initHeaders(payload, this.options.headers);
    const resolved = await this.api.resolveSession(headers);
    this.session = resolved.session;
    this.headers = headers;
    if (resolved.expiresAt) {
      const ms = resolved.expiresAt.getTime() - Date.now();
      const close = () => this.options.socket.close(CLOSE.expired, "the session's credentials expired");
      if (ms <= 0) close();
      // setTimeout's longest delay is some 24 days; a later expiry is checked again then.
      else this.expiry = setTimeout(close, Math.min(ms, 2 ** 31 - 1));
    }
  }

  get initialised(): boolean {
    return this.session !== undefined;
  }

  has(id: string): boolean {
    return this.operations.has(id);
  }

  /** Starts operation `id`; its answers go to `sink`. */
  async start(id: string, request: GraphQLRequest, sink: OperationSink): Promise<void> {
    const session = this.session;
    if (!session || this.closed) return;
    if (this.operations.size >= this.options.maxOperations) {
      sink.error(errorBody(tooManyOperations(this.options.maxOperations)));
      sink.complete();
      return;
    }
    const controller = new LightAbortController();
    const entry = { controller, stop: NOT_STARTED };
    this.operations.set(id, entry);
    operationIds += 1;
    const requestId = `ws-${operationIds}`;
    const context: RequestContext = { signal: controller.signal, ip: this.options.ip, requestId, headers: this.headers };
    this.log(id, "started", { requestId, operationName: request.operationName ?? undefined, role: session.role });
    let started: Started;
    try {
      started = await this.api.start(request, session, context, new SinkSubscriber(sink));
    } catch (error) {
      this.operations.delete(id);
      this.log(id, "failed", { requestId });
      throw error;
    }
    if (started.kind === "subscription") {
      // Stopped meanwhile (the client completed it, the socket closed): stop it now.
      if (this.operations.get(id) !== entry || this.closed) started.stop();
      else entry.stop = started.stop;
      return;
    }
    if (this.operations.get(id) !== entry) return;
    this.operations.delete(id);
    this.log(id, started.response.failed ? "failed" : "completed", { requestId });
    if (started.response.failed) sink.error(started.response.body);
    else sink.next(started.response.body);
    sink.complete();
  }

  /** A `websocket` log line of operation `id` (Hasura's websocket-log operation events). */
  private log(id: string, event: string, details: object): void {
    this.options.logger.info(
      { websocket: this.options.websocket, event: "operation", operationId: id, type: event, ...details },
      "websocket",
    );
  }

  /** Stops operation `id` (the client completed it): a subscription stops, a running query is cancelled. */
  stop(id: string): void {
    const entry = this.operations.get(id);
    if (!entry) return;
    this.operations.delete(id);
    this.log(id, "stopped", {});
    entry.controller.abort(new Error("the client stopped the operation"));
    entry.stop();
  }

  /** The socket closed: every operation stops. */
  close(): void {
    this.closed = true;
    clearTimeout(this.expiry);
    for (const id of [...this.operations.keys()]) this.stop(id);
  }
}

/**
 * The WebSocket clients of tests-py (context.py's GQLWsClient for the legacy Apollo protocol and
 * GraphQLWSClient for `graphql-transport-ws`), with the same queues: a main queue and one queue per
 * operation id, read with a timeout that fails as Python's `queue.Empty` does. The legacy client
 * puts messages with an id on their operation's queue only, and every other message but `ka` on the
 * main queue; the graphql-ws client answers pings and puts every other message on the main queue
 * too. `init` opens a new connection each time, as upstream's does.
 */
import WebSocket from "ws";

export type Protocol = "apollo" | "graphql-ws";
export type Frame = Record<string, unknown> & { type?: string; id?: string; payload?: unknown };

/** What `queue.get(timeout=...)` raises when nothing came in time. */
export class QueueEmpty extends Error {}

class Queue {
  private readonly items: Frame[] = [];
  private readonly waiters: Array<(frame: Frame) => void> = [];

  put(frame: Frame): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(frame);
    else this.items.push(frame);
  }

  get size(): number {
    return this.items.length;
  }

  clear(): void {
    this.items.length = 0;
  }

  get(timeoutMs: number, what: string): Promise<Frame> {
    const first = this.items.shift();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const waiter = (frame: Frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new QueueEmpty(`no message on ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

export class HarnessWsClient {
  private ws: WebSocket | undefined;
  private opened: Promise<void> = Promise.resolve();
  private main = new Queue();
  private byId = new Map<string, Queue>();
  private remoteClosed = false;
  private closing = false;
  initDone = false;
  /** The close frame the server sent, once it closed the connection. */
  closeCode: number | undefined;

  constructor(
    private readonly url: string,
    readonly protocol: Protocol,
    /** The engine's admin secret (tests-py's hge_key), if it has one. */
    readonly hgeKey: string | undefined,
  ) {}

  /** `create_conn`: a new connection, with empty queues. */
  createConn(): void {
    // Upstream leaves the previous connection open and unread; here it is dropped.
    this.ws?.terminate();
    this.main = new Queue();
    this.byId = new Map();
    this.initDone = false;
    this.closing = false;
    this.remoteClosed = false;
    this.closeCode = undefined;
    const ws = this.protocol === "graphql-ws" ? new WebSocket(this.url, ["graphql-transport-ws"]) : new WebSocket(this.url);
    this.ws = ws;
    this.opened = new Promise((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    this.opened.catch(() => undefined);
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.once("close", (code) => {
      if (this.ws !== ws) return;
      this.remoteClosed = true;
      this.initDone = false;
      this.closeCode = code;
    });
  }

  private onMessage(text: string): void {
    const frame = JSON.parse(text) as Frame;
    if (this.protocol === "graphql-ws" && frame.type === "ping") {
      this.ws?.send(JSON.stringify({ type: "pong" }));
      return;
    }
    if (typeof frame.id === "string") this.queueOf(frame.id).put(frame);
    if (this.protocol === "graphql-ws" || (frame.id === undefined && frame.type !== "ka")) this.main.put(frame);
  }

  private queueOf(id: string): Queue {
    let queue = this.byId.get(id);
    if (!queue) {
      queue = new Queue();
      this.byId.set(id, queue);
    }
    return queue;
  }

  /** `send`: waits for the connection (10 s), then sends the frame; a `start`/`subscribe` gets a fresh queue for its id. */
  async send(frame: Frame): Promise<void> {
    if (!this.ws || this.closing) throw new Error("the client has no open connection");
    await withTimeout(this.opened, 10_000, "the WebSocket connection");
    if ((frame.type === "start" || frame.type === "subscribe") && typeof frame.id === "string") this.byId.set(frame.id, new Queue());
    this.ws.send(JSON.stringify(frame));
  }

  /** `init(headers)`: a new connection, `connection_init` with the headers, and its ack within 3 s (5 s for graphql-ws). */
  async init(headers: Record<string, string> = {}): Promise<void> {
    this.createConn();
    const payload = Object.keys(headers).length > 0 ? { headers } : {};
    await this.send({ type: "connection_init", payload });
    const ack = await this.event(this.protocol === "graphql-ws" ? 5000 : 3000);
    if (ack.type !== "connection_ack") throw new Error(`expected connection_ack, got ${JSON.stringify(ack)}`);
    this.initDone = true;
  }

  /** `init_as_admin`: with the admin secret as header when the engine has one. */
  initAsAdmin(): Promise<void> {
    return this.init(this.hgeKey ? { "x-hasura-admin-secret": this.hgeKey } : {});
  }

  /** `get_ws_event(timeout)`: the next message on the main queue. */
  event(timeoutMs: number): Promise<Frame> {
    return this.main.get(timeoutMs, "the main queue");
  }

  /** `get_ws_query_event(id, timeout)`: the next message of one operation. */
  queryEvent(id: string, timeoutMs: number): Promise<Frame> {
    return this.queueOf(id).get(timeoutMs, `operation ${id}'s queue`);
  }

  get queued(): number {
    return this.main.size;
  }

  clearQueue(): void {
    this.main.clear();
  }

  /** `send_query(payload, query_id, timeout)`: starts the operation; `next()` reads its messages one by one. */
  async sendQuery(payload: Frame, id: string, timeoutMs = 15_000): Promise<() => Promise<Frame>> {
    if (!this.initDone) await this.init();
    await this.send({ id, type: this.protocol === "graphql-ws" ? "subscribe" : "start", payload });
    return () => this.queryEvent(id, timeoutMs);
  }

  /** `stop(id)`: the protocol's own word for it. */
  stop(id: string): Promise<void> {
    return this.send({ id, type: this.protocol === "graphql-ws" ? "complete" : "stop" });
  }

  /** `get_conn_close_state()`. */
  get closed(): boolean {
    return this.remoteClosed || this.closing;
  }

  /** Resolves once nothing has come on the main queue for `ms` (Python's `pytest.raises(queue.Empty)`), else throws. */
  async expectNoEvent(ms: number): Promise<void> {
    try {
      const frame = await this.event(ms);
      throw new Error(`expected no message within ${ms} ms, got ${JSON.stringify(frame)}`);
    } catch (error) {
      if (!(error instanceof QueueEmpty)) throw error;
    }
  }

  /** Waits up to `ms` for the server to close the connection (it closes every socket when metadata changes). */
  async settle(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.ws && !this.remoteClosed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  teardown(): void {
    this.closing = true;
    if (this.ws && this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
    this.ws = undefined;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not open within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

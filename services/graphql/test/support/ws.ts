/**
 * WebSocket clients for the subscription suites: the real ones (graphql-ws's client, Apollo's
 * subscriptions-transport-ws client), and a raw socket that records every message and the close,
 * for asserting the protocols' messages and close codes frame by frame.
 */
import { type Client, createClient } from "graphql-ws";
import { SubscriptionClient } from "subscriptions-transport-ws";
import WebSocket from "ws";

/** graphql-ws's client on `url`, `connection_init` carrying `headers`; no retries (a close is the test's to see). */
export function transportClient(url: string, headers: Record<string, string>): Client {
  return createClient({ url, webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0, lazy: true });
}

/** Apollo's legacy client on `url` (protocol `graphql-ws`). */
export function legacyClient(url: string, headers: Record<string, string>): SubscriptionClient {
  return new SubscriptionClient(url, { connectionParams: { headers }, reconnect: false }, WebSocket);
}

/** Collects a subscription's answers; `next(n)` waits until there are `n`. */
export class Answers<T = unknown> {
  readonly values: T[] = [];
  readonly errors: unknown[] = [];
  completed = false;
  private waiters: Array<() => void> = [];

  readonly sink = {
    next: (value: T) => {
      this.values.push(value);
      this.wake();
    },
    error: (error: unknown) => {
      this.errors.push(error);
      this.wake();
    },
    complete: () => {
      this.completed = true;
      this.wake();
    },
  };

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves once `check` holds, or rejects after `ms`. */
  async until(check: () => boolean, ms = 5000, what = "the expected answers"): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `${what}: not within ${ms} ms (have ${JSON.stringify(this.values).slice(0, 500)}, errors ${JSON.stringify(this.errors)})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  next(count: number, ms?: number): Promise<void> {
    return this.until(() => this.values.length >= count, ms, `${count} answers`);
  }
}

interface Frame {
  type?: string;
  id?: string;
  payload?: unknown;
}

/** A socket that records the server's messages and its close, for frame-level assertions. */
export class RawSocket {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly ws: WebSocket;
  private read = 0;
  private waiters: Array<() => void> = [];

  constructor(url: string, protocol?: string) {
    this.ws = protocol ? new WebSocket(url, protocol) : new WebSocket(url);
    this.ws.on("message", (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    this.closed = new Promise((resolve) => {
      this.ws.on("close", (code, reason) => {
        resolve({ code, reason: String(reason) });
        for (const waiter of this.waiters.splice(0)) waiter();
      });
    });
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState === WebSocket.OPEN) return resolve();
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The next frame not yet read that `match` accepts (frames it skips stay unread); rejects after `ms`. */
  async next(match: (frame: Frame) => boolean = () => true, ms = 5000): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      for (let i = this.read; i < this.frames.length; i++) {
        const frame = this.frames[i] as Frame;
        if (match(frame)) {
          this.read = i + 1;
          return frame;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.ws.readyState === WebSocket.CLOSED)
        throw new Error(`no matching frame within ${ms} ms; frames: ${JSON.stringify(this.frames).slice(0, 800)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Frames of `type` received so far. */
  count(type: string): number {
    return this.frames.filter((f) => f.type === type).length;
  }

  close(): void {
    this.ws.close();
  }

  /** Stops reading from the network (a client too slow to read), and starts again. */
  pause(): void {
    (this.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  }

  resume(): void {
    (this.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  }
}

/** The service's WebSocket URL for the HTTP URL it listens on. */
export function socketUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, "ws")}/v1/graphql`;
}

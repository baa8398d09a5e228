/**
 * The events receiver of Hasura's tests-py, ported: hasura/graphql-engine server/tests-py/context.py
 * `EvtsWebhookServer` / `EvtsWebhookHandler`. conftest.py starts one per test class, before the
 * engine: `evts_webhook` hands its URL to the engine as EVENT_WEBHOOK_HANDLER (test_events.py),
 * `scheduled_triggers_evts_webhook` as SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN (test_scheduled_triggers.py).
 *
 * What it answers (a threading server: requests are served concurrently):
 * - GET: 200, nothing recorded.
 * - POST `/fail`: 500; `/sleep_2s`: 204 after 2 s; `/block`: 204 once `unblock()` was called (a
 *   request waits at most 60 s, then is answered all the same); any other path: 204.
 * - Each POST is recorded once answered: `{path, body, headers}`, in that order of answers. A POST
 *   without Content-Length or whose body is not JSON makes the Python handler raise before it
 *   answers: the connection is closed and nothing is recorded.
 * - Other methods: 501, as BaseHTTPRequestHandler answers a method it has no `do_` for.
 * Headers are looked up case-insensitively (an `http.client.HTTPMessage`; `get` gives the first).
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./actions-webhook.js";
import { InlineFailure } from "./inline.js";

export interface DeliveredEvent {
  /** The request target, as `self.path` (`/`, `/fail`, `/?foo=bar`). */
  path: string;
  body: unknown;
  /** Header names in lower case, each with its first value. */
  headers: Record<string, string>;
}

/** `queue.Empty`: `get_event(timeout)` found nothing in time. */
export class QueueEmpty extends InlineFailure {}

export interface EventsWebhookServer {
  /** `http://127.0.0.1:<port>`: the value of the variable the engine gets. */
  readonly url: string;
  /** `get_event(timeout)`: the oldest recorded event, waiting up to `timeoutMs`; throws QueueEmpty. */
  getEvent(timeoutMs: number): Promise<DeliveredEvent>;
  /** Whether no recorded event is waiting to be taken. */
  isQueueEmpty(): boolean;
  /** Requests to /block waiting now (`blocked_count`). */
  readonly blockedCount: number;
  /** Answers the waiting and all later requests to /block. Idempotent. */
  unblock(): void;
  /** Events recorded so far, taken or not. */
  readonly received: number;
  close(): Promise<void>;
}

const BLOCK_LIMIT_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Each header's first value, under its lower-case name. */
function firstValues(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? "").toLowerCase();
    if (!(name in out)) out[name] = raw[i + 1] ?? "";
  }
  return out;
}

/** The receiver of the class running now. */
let current: EventsWebhookServer | undefined;

export function currentEventsWebhook(): EventsWebhookServer {
  if (!current) throw new Error("no events webhook (evts_webhook) is running");
  return current;
}

export async function startEventsWebhook(): Promise<EventsWebhookServer> {
  const queue: DeliveredEvent[] = [];
  const waiters: Array<(event: DeliveredEvent) => void> = [];
  let received = 0;
  let unblocked = false;
  let blockedCount = 0;
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });

  const record = (event: DeliveredEvent) => {
    received++;
    const waiter = waiters.shift();
    if (waiter) waiter(event);
    else queue.push(event);
  };

  const answer = (res: ServerResponse, status: number) => {
    res.writeHead(status);
    res.end();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (req.method === "GET") return answer(res, 200);
    if (req.method !== "POST") return answer(res, 501);
    const path = req.url ?? "/";
    let json: unknown;
    try {
      if (req.headers["content-length"] === undefined) throw new Error("no Content-Length");
      json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    } catch {
      // The Python handler raises: socketserver closes the connection without an answer.
      res.socket?.destroy();
      return;
    }
    if (path === "/fail") answer(res, 500);
    else if (path === "/sleep_2s") {
      await sleep(2000);
      answer(res, 204);
    } else if (path === "/block") {
      if (!unblocked) {
        blockedCount++;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([released, new Promise<void>((resolve) => (timer = setTimeout(resolve, BLOCK_LIMIT_MS)))]);
        clearTimeout(timer);
        blockedCount--;
      }
      answer(res, 204);
    } else answer(res, 204);
    record({ path, body: json, headers: firstValues(req.rawHeaders) });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.socket?.destroy());
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const receiver: EventsWebhookServer = {
    url: `http://127.0.0.1:${port}`,
    getEvent(timeoutMs) {
      const next = queue.shift();
      if (next) return Promise.resolve(next);
      const seconds = timeoutMs / 1000;
      if (timeoutMs <= 0) return Promise.reject(new QueueEmpty(`queue.Empty: no event (get_event(${seconds}))`));
      return new Promise((resolve, reject) => {
        const waiter = (event: DeliveredEvent) => {
          clearTimeout(timer);
          resolve(event);
        };
        const timer = setTimeout(() => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(new QueueEmpty(`queue.Empty: no event within ${seconds} s (get_event(${seconds})); ${received} received so far`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    isQueueEmpty: () => queue.length === 0,
    get blockedCount() {
      return blockedCount;
    },
    unblock() {
      unblocked = true;
      release();
      // Later waits start again (Python's Condition), but the flag answers them at once.
      released = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    get received() {
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        receiver.unblock();
        if (current === receiver) current = undefined;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  current = receiver;
  return receiver;
}

/**
 * POST /otp (email) under autocannon. Requests cycle through the prepared, confirmed users, one
 * user per request in turn, so no two requests in flight lock the same user and each one mails a
 * magic link. Every 2xx answer is counted against the address it was for, so that afterwards the
 * sink's count per recipient can be checked against the answers (`answered`).
 */
import autocannon from "autocannon";
import { type LoadResult, loadResultOf } from "../catalog/load.js";
import type { SmtpSink } from "./smtp-sink.js";

export interface QueueDepth {
  /** Mails owed to answered requests (answered minus received), sampled every 100 ms: the largest. */
  max: number;
  /** The same when the load stopped. */
  atEnd: number;
  /** Mails received whose answers were still held back (received minus answered): the largest. */
  maxAhead: number;
}

export interface OtpLoad extends LoadResult {
  p90Ms: number;
  /** 2xx answers per address. */
  answered: Map<string, number>;
  answeredTotal: number;
  queue: QueueDepth;
}

const otpBody = (email: string) => JSON.stringify({ email });

/** One request per connection at a time; `emails[next++ % n]` for each request. */
function otpRequests(emails: string[]) {
  let next = 0;
  const answered = new Map<string, number>();
  let answeredTotal = 0;
  const setupClient = (client: autocannon.Client) => {
    let current = "";
    client.setRequests([
      {
        method: "POST",
        path: "/otp",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => {
          current = emails[next++ % emails.length] as string;
          return { ...request, body: otpBody(current) };
        },
        onResponse: (status) => {
          if (status < 200 || status >= 300) return;
          answered.set(current, (answered.get(current) ?? 0) + 1);
          answeredTotal++;
        },
      },
    ]);
  };
  return { setupClient, answered, total: () => answeredTotal };
}

/** Requests that are not recorded (JIT, pools, SMTP connections, the uniform-timing window); waits for every answer. */
export async function warmOtp(url: string, emails: string[], connections: number, amount: number): Promise<number> {
  const hooks = otpRequests(emails);
  const result = await autocannon({ url, connections, amount, setupClient: hooks.setupClient });
  return result.non2xx + result.errors;
}

/** `rate`: requests per second over all connections (autocannon's overallRate); unset, as fast as they answer. */
export async function loadOtp(
  url: string,
  emails: string[],
  connections: number,
  seconds: number,
  sink: SmtpSink,
  rate?: number,
): Promise<OtpLoad> {
  const hooks = otpRequests(emails);
  const received0 = sink.received;
  const queue: QueueDepth = { max: 0, atEnd: 0, maxAhead: 0 };
  const sample = () => {
    const owed = hooks.total() - (sink.received - received0);
    queue.max = Math.max(queue.max, owed);
    queue.maxAhead = Math.max(queue.maxAhead, -owed);
    return owed;
  };
  const timer = setInterval(sample, 100);
  try {
    const paced = rate === undefined ? {} : { overallRate: rate };
    const result = await autocannon({ url, connections, duration: seconds, setupClient: hooks.setupClient, ...paced });
    queue.atEnd = sample();
    return { ...loadResultOf(result), p90Ms: result.latency.p90, answered: hooks.answered, answeredTotal: hooks.total(), queue };
  } finally {
    clearInterval(timer);
  }
}

export interface Delivery {
  answered: number;
  /** Answered requests whose recipient has received a mail for it. */
  delivered: number;
  /** Mails beyond the answers (requests still in flight when the load stopped), once the wait ended. */
  extra: number;
  /** How long it took after the load until every answered request's mail was there (or the timeout). */
  waitedMs: number;
}

/**
 * Waits (up to `timeoutMs`) until every recipient has received at least as many mails since
 * `before` (a copy of the sink's counts taken before the load) as it was answered for, then counts.
 */
export async function awaitDelivery(
  sink: SmtpSink,
  before: { total: number; byRecipient: ReadonlyMap<string, number> },
  answered: ReadonlyMap<string, number>,
  timeoutMs: number,
): Promise<Delivery> {
  const started = performance.now();
  const count = () => {
    let delivered = 0;
    let total = 0;
    for (const [email, n] of answered) {
      const got = (sink.byRecipient.get(email) ?? 0) - (before.byRecipient.get(email) ?? 0);
      delivered += Math.min(got, n);
      total += n;
    }
    return { answered: total, delivered, extra: sink.received - before.total - delivered };
  };
  let now = count();
  while (now.delivered < now.answered && performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = count();
  }
  const waitedMs = Math.round(performance.now() - started);
  // Let the requests still in flight when the load stopped finish their sends too, so `extra` is complete.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { ...count(), waitedMs };
}

/**
 * The measurement's floor: GET `path` (a request with no database and no mail, e.g. /settings)
 * at `rate` requests/s over `connections`, for the same time as the paced /otp load.
 */
export async function loadPacedGet(url: string, path: string, connections: number, seconds: number, rate: number): Promise<LoadResult> {
  return loadResultOf(await autocannon({ url: `${url}${path}`, connections, duration: seconds, overallRate: rate }));
}

/**
 * Load for the profile-page bench: autocannon POSTs the request bodies in turn, and each answer is
 * checked against the one expected for its body. Checked by status and length, which a reordering
 * of an unordered list keeps and an error or a wrong player does not (the content itself is
 * compared in full before the load, for every body, on both sides). Rounds are kept raw and added
 * up with autocannon's own aggregateResult, so p50 and p99 cover every request of a side.
 */
import autocannon from "autocannon";
import type { LoadResult } from "./catalog/load.js";

export interface Target {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  /** Byte length of the right answer to each body. */
  lengths: number[];
  /** Answers that were not right: `status length` with how often. */
  wrong: Map<string, number>;
}

interface RawRound {
  totalCompletedRequests: number;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

const aggregate = (autocannon as unknown as { aggregateResult(results: unknown[], opts: object): autocannon.Result }).aggregateResult;

function options(target: Target, connections: number): autocannon.Options {
  let next = 0;
  return {
    url: target.url,
    connections,
    headers: { "content-type": "application/json", ...target.headers },
    requests: [
      {
        method: "POST",
        // One request in flight per connection: its context says which body the answer is for.
        setupRequest: (request, context) => {
          const index = next++ % target.bodies.length;
          (context as { index?: number }).index = index;
          return { ...request, body: target.bodies[index] };
        },
        onResponse: (status, body, context) => {
          const index = (context as { index?: number }).index ?? -1;
          if (status === 200 && Buffer.byteLength(body) === target.lengths[index]) return;
          const key = `${status} ${Buffer.byteLength(body)} bytes for body ${index}: ${body.slice(0, 200)}`;
          target.wrong.set(key, (target.wrong.get(key) ?? 0) + 1);
        },
      },
    ],
  };
}

/** JIT, caches, prepared statements, keep-alive sockets: requests that are not recorded. */
export async function warm(target: Target, connections: number): Promise<void> {
  await autocannon({ ...options(target, connections), amount: Math.max(connections * 20, target.bodies.length * 2) });
}

export async function round(target: Target, connections: number, seconds: number): Promise<RawRound> {
  return (await autocannon({ ...options(target, connections), duration: seconds, skipAggregateResult: true })) as unknown as RawRound;
}

/** A side's rounds as one result; wrong answers count as errors. */
export function combine(rounds: RawRound[], connections: number, target: Target): LoadResult {
  const result = aggregate(rounds, { url: target.url, connections });
  const requests = rounds.reduce((n, r) => n + r.totalCompletedRequests, 0);
  const seconds = rounds.reduce((s, r) => s + r.duration, 0);
  let wrong = 0;
  for (const [answer, count] of target.wrong) if (answer.startsWith("2")) wrong += count;
  return {
    requestsPerSecond: requests / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors + r.timeouts, 0) + wrong,
  };
}

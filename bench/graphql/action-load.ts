/**
 * Load in rounds for the action bench: each round is one autocannon run kept raw
 * (`skipAggregateResult`), and a side's rounds are added up at the end with autocannon's own
 * aggregateResult, so its p50 and p99 come from every request's latency, not an average of rounds.
 */
import autocannon from "autocannon";
import type { LoadResult } from "../catalog/load.js";

export interface Target {
  url: string;
  headers: Record<string, string>;
  /** The one request body, the same bytes every time (the direct side replays what our service sent). */
  body: string;
  /** The one right answer: any other counts as an error (a GraphQL error still answers 200). */
  expect: string;
  /** Each other answer seen (2xx with another body, or another status), by `status body`, with how often. */
  wrong: Map<string, number>;
}

/** A round as autocannon reports it before aggregation (lib/run.js). */
interface RawRound {
  totalCompletedRequests: number;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

const aggregate = (autocannon as unknown as { aggregateResult(results: unknown[], opts: object): autocannon.Result }).aggregateResult;

function options(target: Target, connections: number): autocannon.Options {
  return {
    url: target.url,
    connections,
    method: "POST",
    headers: { "content-type": "application/json", ...target.headers },
    body: target.body,
    // Not expectBody (autocannon refuses it beside `requests`): onResponse also keeps what came instead.
    requests: [
      {
        method: "POST",
        body: target.body,
        onResponse: (status: number, body: string) => {
          if (status === 200 && body === target.expect) return;
          const key = `${status} ${body.slice(0, 500)}`;
          target.wrong.set(key, (target.wrong.get(key) ?? 0) + 1);
        },
      },
    ],
  };
}

/** JIT, caches, keep-alive sockets: requests that are not recorded. */
export async function warm(target: Target, connections: number): Promise<void> {
  await autocannon({ ...options(target, connections), amount: connections * 50 });
}

export async function round(target: Target, connections: number, seconds: number): Promise<unknown> {
  return autocannon({ ...options(target, connections), duration: seconds, skipAggregateResult: true });
}

/** What went wrong over a side's rounds, by kind (all zero in a clean run). */
export interface Failures {
  errors: number;
  timeouts: number;
  /** 2xx answers other than the expected one (a GraphQL error is still a 200). */
  wrongAnswers: number;
  non2xx: number;
}

export function failures(rounds: unknown[], target: Target): Failures {
  const raw = rounds as RawRound[];
  const sum = (pick: (r: RawRound) => number) => raw.reduce((n, r) => n + pick(r), 0);
  let wrongAnswers = 0;
  for (const [answer, count] of target.wrong) if (answer.startsWith("2")) wrongAnswers += count;
  return { errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts), wrongAnswers, non2xx: sum((r) => r.non2xx) };
}

/** A side's rounds as one result: requests per second over their whole time, percentiles over all their requests. */
export function combine(rounds: unknown[], connections: number, failed: Failures): LoadResult {
  const raw = rounds as RawRound[];
  const result = aggregate(rounds, { url: "http://127.0.0.1", connections });
  const requests = raw.reduce((n, r) => n + r.totalCompletedRequests, 0);
  const seconds = raw.reduce((s, r) => s + r.duration, 0);
  return {
    requestsPerSecond: requests / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    non2xx: failed.non2xx,
    errors: failed.errors + failed.timeouts + failed.wrongAnswers,
  };
}

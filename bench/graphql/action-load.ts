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
}

/** A round as autocannon reports it before aggregation (lib/run.js). */
interface RawRound {
  totalCompletedRequests: number;
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
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
    expectBody: target.expect,
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
  /** Answers other than the expected one (a GraphQL error is still a 200). */
  mismatches: number;
  non2xx: number;
}

export function failures(rounds: unknown[]): Failures {
  const raw = rounds as RawRound[];
  const sum = (pick: (r: RawRound) => number) => raw.reduce((n, r) => n + pick(r), 0);
  return {
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    mismatches: sum((r) => r.mismatches),
    non2xx: sum((r) => r.non2xx),
  };
}

/** A side's rounds as one result: requests per second over their whole time, percentiles over all their requests. */
export function combine(rounds: unknown[], connections: number): LoadResult {
  const raw = rounds as RawRound[];
  const result = aggregate(rounds, { url: "http://127.0.0.1", connections });
  const requests = raw.reduce((n, r) => n + r.totalCompletedRequests, 0);
  const seconds = raw.reduce((s, r) => s + r.duration, 0);
  return {
    requestsPerSecond: requests / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    non2xx: raw.reduce((n, r) => n + r.non2xx, 0),
    errors: raw.reduce((n, r) => n + r.errors + r.timeouts + r.mismatches, 0),
  };
}

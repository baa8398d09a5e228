/** HTTP load on one route with autocannon: a short warm-up, then the measured run. */
import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

interface LoadOptions {
  connections: number;
}

/** `paths` are cycled in order, one per request, so a route is not measured on a single cached URL. */
function cycle(paths: string[]): autocannon.Request[] {
  let next = 0;
  return [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] ?? "/" }) }];
}

/** JIT, caches, keep-alive sockets: a few hundred requests that are not recorded. */
export async function warmRoute(url: string, paths: string[], options: LoadOptions): Promise<void> {
  await autocannon({ url, connections: options.connections, amount: options.connections * 20, requests: cycle(paths) });
}

export async function loadRoute(url: string, paths: string[], options: LoadOptions & { seconds: number }): Promise<LoadResult> {
  return loadResultOf(await autocannon({ url, connections: options.connections, duration: options.seconds, requests: cycle(paths) }));
}

/** The figures every bench reports from one autocannon run. */
export function loadResultOf(result: autocannon.Result): LoadResult {
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

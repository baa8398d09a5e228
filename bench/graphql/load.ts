/** GraphQL POST load with autocannon: a warm-up, then the measured run; bodies rotate per request. */
import autocannon from "autocannon";
import { type LoadResult, loadResultOf } from "../catalog/load.js";

export interface GraphqlTarget {
  url: string;
  headers: Record<string, string>;
  /** JSON request bodies, cycled in order. */
  bodies: string[];
}

function requests(target: GraphqlTarget): autocannon.Request[] {
  let next = 0;
  return [{ method: "POST", setupRequest: (request) => ({ ...request, body: target.bodies[next++ % target.bodies.length] }) }];
}

function options(target: GraphqlTarget, connections: number): autocannon.Options {
  return {
    url: target.url,
    connections,
    headers: { "content-type": "application/json", ...target.headers },
    requests: requests(target),
  };
}

/** JIT, plan and parse caches, keep-alive sockets: requests that are not recorded. */
export async function warmGraphql(target: GraphqlTarget, connections: number): Promise<void> {
  await autocannon({ ...options(target, connections), amount: connections * 30 });
}

export async function loadGraphql(target: GraphqlTarget, connections: number, seconds: number): Promise<LoadResult> {
  const result = await autocannon({ ...options(target, connections), duration: seconds });
  return { ...loadResultOf(result), errors: result.errors + result.timeouts };
}

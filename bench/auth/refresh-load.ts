/**
 * POST /token?grant_type=refresh_token under autocannon. Every connection owns one session and
 * walks its refresh-token chain: each response's refresh_token is presented by that connection's
 * next request, so every request carries a fresh, valid token.
 */
import autocannon from "autocannon";
import { type LoadResult, loadResultOf } from "../catalog/load.js";

export interface RefreshLoad extends LoadResult {
  /** Responses without a new refresh token (a broken chain is then repeated, so this must stay 0). */
  broken: number;
}

/** `chains[i]` is connection i's current token; it is updated in place from the responses. */
function chainedRequests(chains: string[]) {
  let nextSlot = 0;
  let broken = 0;
  const setupClient = (client: autocannon.Client) => {
    const slot = nextSlot++;
    if (slot >= chains.length) throw new Error(`only ${chains.length} sessions for more connections`);
    client.setRequests([
      {
        method: "POST",
        path: "/token?grant_type=refresh_token",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ refresh_token: chains[slot] }) }),
        onResponse: (status, body) => {
          const next = status === 200 ? (JSON.parse(body) as { refresh_token?: unknown }).refresh_token : undefined;
          if (typeof next === "string") chains[slot] = next;
          else broken++;
        },
      },
    ]);
  };
  return { setupClient, broken: () => broken };
}

/** A few requests per connection that are not recorded (JIT, pools, keep-alive sockets); waits for every answer. */
export async function warmRefresh(url: string, chains: string[], connections: number): Promise<number> {
  const hooks = chainedRequests(chains);
  await autocannon({ url, connections, amount: connections * 20, setupClient: hooks.setupClient });
  return hooks.broken();
}

export async function loadRefresh(url: string, chains: string[], connections: number, seconds: number): Promise<RefreshLoad> {
  const hooks = chainedRequests(chains);
  const result = await autocannon({ url, connections, duration: seconds, setupClient: hooks.setupClient });
  return { ...loadResultOf(result), broken: hooks.broken() };
}

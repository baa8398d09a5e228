/**
 * pSEED balances, read from the token contract through a JSON-RPC node (PSEED_RPC_URL):
 * `eth_call` of ERC-20 `balanceOf(address)` (https://ethereum.org/en/developers/docs/apis/json-rpc/#eth_call,
 * https://eips.ethereum.org/EIPS/eip-20), balances in the token's smallest unit as decimal strings,
 * as MetaGame's seed subgraph gave them. MetaGame read both SEED (mainnet) and pSEED from a
 * subgraph; only pSEED has a provider here, so `seedBalance` is always "0". With no RPC node
 * configured every field answers its empty value.
 */
import type { RemoteContext } from "./context.js";
import { isEthereumAddress, ProviderError, requestJson } from "./http-json.js";

/** The selector of `balanceOf(address)`: the first four bytes of its keccak-256. */
const BALANCE_OF = "0x70a08231";
/** JSON-RPC requests per batch (public nodes commonly cap batches at 100). */
const BATCH = 100;
/** The players whose balances getTopPSeedHolders compares, by XP: it cannot enumerate holders without an indexer. */
export const HOLDER_CANDIDATES = 2000;
const DEFAULT_HOLDERS = 50;

export interface TokenBalances {
  id: string;
  seedBalance: string;
  pSeedBalance: string;
}

interface RpcAnswer {
  id: number;
  result?: string;
  error?: { message?: string };
}

const balanceOfData = (address: string) => `${BALANCE_OF}${address.slice(2).toLowerCase().padStart(64, "0")}`;

/** pSEED balances of the addresses, one JSON-RPC batch per hundred. */
async function balancesOf(context: RemoteContext, addresses: string[]): Promise<bigint[]> {
  const { pSeedRpcUrl, pSeedContract } = context.deps.config;
  if (!pSeedRpcUrl) throw new ProviderError("pSEED RPC", "not configured");
  const out: bigint[] = [];
  for (let start = 0; start < addresses.length; start += BATCH) {
    const chunk = addresses.slice(start, start + BATCH);
    const calls = chunk.map((address, id) => ({
      jsonrpc: "2.0",
      id,
      method: "eth_call",
      params: [{ to: pSeedContract, data: balanceOfData(address) }, "latest"],
    }));
    const answers = await requestJson<RpcAnswer[]>(context.deps.fetch, {
      provider: "pSEED RPC",
      url: pSeedRpcUrl,
      method: "POST",
      body: calls,
    });
    if (!Array.isArray(answers)) throw new ProviderError("pSEED RPC", "answered a batch with something that is not a list");
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    for (const [id] of chunk.entries()) {
      const answer = byId.get(id);
      if (!answer || answer.error || typeof answer.result !== "string" || !/^0x[0-9a-fA-F]*$/.test(answer.result)) {
        throw new ProviderError("pSEED RPC", answer?.error?.message ?? "answered eth_call without a result");
      }
      out.push(answer.result === "0x" ? 0n : BigInt(answer.result));
    }
  }
  return out;
}

const balances = (address: string, pSeed: bigint): TokenBalances => ({ id: address, seedBalance: "0", pSeedBalance: pSeed.toString() });

/** null without an address, for a placeholder address, without an RPC node, or when the node fails (logged). */
export async function getTokenBalances(address: string | null | undefined, context: RemoteContext): Promise<TokenBalances | null> {
  if (!context.deps.config.pSeedRpcUrl || !isEthereumAddress(address)) return null;
  const lower = address.toLowerCase();
  try {
    const [balance] = await context.memo(`pseed:${lower}`, () => balancesOf(context, [lower]));
    return balances(lower, balance ?? 0n);
  } catch (error) {
    context.log.warn({ err: error, address: lower }, "could not read a pSEED balance");
    return null;
  }
}

/**
 * The players (the HOLDER_CANDIDATES with most XP) holding the most pSEED. MetaGame listed every
 * holder from a subgraph, and its web client then kept only the players among them; reading
 * balances one address at a time can only start from the players.
 */
export async function getTopPSeedHolders(limit: number | null | undefined, context: RemoteContext): Promise<TokenBalances[]> {
  const wanted = limit ?? DEFAULT_HOLDERS;
  if (!context.deps.config.pSeedRpcUrl || wanted <= 0) return [];
  const { player } = await context.deps.engine.request<{ player: Array<{ ethereumAddress: string }> }>(
    "query Candidates($limit: Int!) { player(order_by: [{totalXP: desc_nulls_last}, {id: asc}], limit: $limit) { ethereumAddress } }",
    { limit: HOLDER_CANDIDATES },
  );
  const addresses = player.map((p) => p.ethereumAddress).filter(isEthereumAddress);
  const amounts = await balancesOf(context, addresses);
  return addresses
    .map((address, i) => ({ address, amount: amounts[i] ?? 0n }))
    .filter((holder) => holder.amount > 0n)
    .sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1))
    .slice(0, wanted)
    .map((holder) => balances(holder.address, holder.amount));
}

/** MetaGame priced pSEED from a Balancer pool's subgraph; no price source is configured here. */
export async function getPSeedInfo(): Promise<{ priceUsd: string | null } | null> {
  return null;
}

/**
 * createQuest's token gate: the caller must hold at least PSEED_FOR_QUEST pSEED (MetaGame's
 * packages/backend/src/handlers/actions/quests/createQuest/permissions.ts), read with two `eth_call`s
 * of the ERC-20 contract (`balanceOf(address)`, `decimals()`) through a JSON-RPC endpoint
 * (https://ethereum.org/en/developers/docs/apis/json-rpc/#eth_call).
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendConfig } from "../../config.js";
import { errors } from "../../errors.js";

/** The 4-byte selectors: keccak256("balanceOf(address)") and keccak256("decimals()"), first 4 bytes. */
const BALANCE_OF = "0x70a08231";
const DECIMALS = "0x313ce567";

const RPC_TIMEOUT_MS = 10_000;

async function ethCall(fetchImpl: typeof fetch, rpcUrl: string, to: string, data: string): Promise<bigint> {
  let response: Response;
  try {
    response = await fetchImpl(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ to, data }, "latest"] }),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
  } catch (error) {
    throw errors.upstream(`the pSEED balance could not be read: the JSON-RPC endpoint could not be reached (${(error as Error).message})`);
  }
  const body = (await response.json().catch(() => null)) as { result?: unknown; error?: { message?: unknown } } | null;
  if (!response.ok || body === null || typeof body !== "object")
    throw errors.upstream(`the pSEED balance could not be read: the JSON-RPC endpoint answered ${response.status}`);
  if (body.error) throw errors.upstream(`the pSEED balance could not be read: ${String(body.error.message ?? "JSON-RPC error")}`);
  if (typeof body.result !== "string" || !/^0x[0-9a-fA-F]{0,64}$/.test(body.result))
    throw errors.upstream("the pSEED balance could not be read: the JSON-RPC endpoint answered no 32-byte result");
  return body.result === "0x" ? 0n : BigInt(body.result);
}

/** `amount` tokens in the token's smallest unit (the threshold may have decimals: "100.5"). */
function toUnits(amount: number, decimals: bigint): bigint {
  const places = Number(decimals);
  const [whole = "0", fraction = ""] = amount.toFixed(Math.min(places, 100)).split(".");
  return BigInt(whole + fraction.padEnd(places, "0").slice(0, places));
}

export async function mayCreateQuests(config: BackendConfig, fetchImpl: typeof fetch, log: FastifyBaseLogger, address: string) {
  // Unlike MetaGame, which reads the balance even when any balance will do.
  if (config.pSeedForQuest <= 0) return true;
  if (!config.pSeedRpcUrl) {
    log.warn({ threshold: config.pSeedForQuest }, "quest creation needs a pSEED balance but PSEED_RPC_URL is not set: refused");
    return false;
  }
  const owner = address.toLowerCase().replace(/^0x/, "").padStart(64, "0");
  const balance = await ethCall(fetchImpl, config.pSeedRpcUrl, config.pSeedContract, `${BALANCE_OF}${owner}`);
  const decimals = await ethCall(fetchImpl, config.pSeedRpcUrl, config.pSeedContract, DECIMALS);
  if (decimals > 77n) throw errors.upstream("the pSEED balance could not be read: the contract reports an impossible number of decimals");
  return balance >= toUnits(config.pSeedForQuest, decimals);
}

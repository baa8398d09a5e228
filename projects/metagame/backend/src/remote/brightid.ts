/**
 * `getBrightIdStatus`: a BrightID node's v5 verifications API (GET
 * /node/v5/verifications/{app}/{contextId}) for the app context `MetaGame`, keyed by the player's
 * id, as MetaGame's packages/backend/src/handlers/remote-schemas/resolvers/brightId/resolver.ts asks
 * it. Any failure (not verified: BrightID answers 404; unreachable; too slow; odd body) is null.
 */
import type { RemoteContext } from "./context.js";
import { PROVIDER_TIMEOUT_MS, requestJson } from "./http-json.js";

export const BRIGHTID_CONTEXT = "MetaGame";

export interface BrightIdStatus {
  unique: boolean;
  app: string;
  context: string;
  contextIds: string[];
}

function isStatus(value: unknown): value is BrightIdStatus {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.unique === "boolean" &&
    typeof v.app === "string" &&
    typeof v.context === "string" &&
    Array.isArray(v.contextIds) &&
    v.contextIds.every((id) => typeof id === "string")
  );
}

export async function getBrightIdStatus(
  contextId: string | null | undefined,
  context: Pick<RemoteContext, "deps" | "log">,
  timeoutMs = PROVIDER_TIMEOUT_MS,
): Promise<BrightIdStatus | null> {
  if (!contextId) return null;
  const { config, fetch } = context.deps;
  const url = `${config.brightIdAppUrl}/node/v5/verifications/${BRIGHTID_CONTEXT}/${encodeURIComponent(contextId)}`;
  try {
    const body = await requestJson<{ data?: unknown }>(fetch, { provider: "BrightID", url, timeoutMs });
    return isStatus(body?.data) ? body.data : null;
  } catch (error) {
    context.log.debug({ err: error, contextId }, "no BrightID status");
    return null;
  }
}

/**
 * JSON over HTTP to the third-party services the backend reads (BrightID, a DAOhaus subgraph, a
 * JSON-RPC node, Discord, a SourceCred instance), each call bounded by a timeout so a slow
 * provider cannot hold a GraphQL request or an event delivery for the engine's whole 60 s.
 */

/** How long one provider call may take before it counts as failed. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** A provider call that failed: unreachable, too slow, a non-2xx status or a body that is not JSON. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    /** The HTTP status when the provider answered; undefined when it could not be reached. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = "ProviderError";
  }
}

export interface JsonRequest {
  /** Names the provider in errors and logs. */
  provider: string;
  url: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
}

/** Sends the request and returns the parsed JSON body (undefined for an empty 2xx body, as Discord's 204s). */
export async function requestJson<T = unknown>(fetchImpl: typeof fetch, request: JsonRequest): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(request.url, {
      method: request.method ?? "GET",
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      redirect: "error",
      signal: AbortSignal.timeout(request.timeoutMs ?? PROVIDER_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? "did not answer in time" : "could not be reached";
    throw new ProviderError(request.provider, reason, undefined, { cause: error });
  }
  if (!response.ok) throw new ProviderError(request.provider, `answered HTTP ${response.status}`, response.status);
  if (text.trim() === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new ProviderError(request.provider, "answered with a body that is not JSON", response.status, { cause: error });
  }
}

/** A 0x-prefixed 20-byte hex address (any case); placeholders and garbage are not. */
export const isEthereumAddress = (value: unknown): value is string => typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value);

/**
 * The gateway's error catalogue: the bodies Supabase's Kong gateway answers with
 * (`{"message": ...}`; Kong 2.8's key-auth and proxy texts), so clients that special-case
 * them keep working.
 */
import { AppError } from "@platform/core";

export const gatewayErrors = {
  noApiKey: () => new AppError(401, "no_api_key", "No API key found in request"),
  invalidApiKey: () => new AppError(401, "invalid_api_key", "Invalid authentication credentials"),
  noRoute: () => new AppError(404, "no_route", "no Route matched with those values"),
  upstreamFailed: (cause: unknown) =>
    new AppError(502, "upstream_failed", "An invalid response was received from the upstream server", undefined, { cause }),
  upstreamTimeout: (cause: unknown) => new AppError(504, "upstream_timeout", "The upstream server is timing out", undefined, { cause }),
};

/** Key-auth failures carry Kong's challenge header. */
export function renderGatewayError(error: AppError) {
  const headers: Record<string, string> = error.status === 401 ? { "www-authenticate": 'Key realm="platform-gateway"' } : {};
  return { status: error.status, body: { message: error.message }, headers };
}

export function renderInternal(id: string) {
  return { message: "An unexpected error occurred", request_id: id };
}

/**
 * Supabase's API keys at the gateway, as its Kong configuration treats them: routes behind
 * key-auth need a known key in the `apikey` header or query parameter; the request then goes
 * upstream with `Authorization` set to the caller's own bearer token when it has one, else to
 * the JWT the key stands for (a legacy anon/service_role key is itself that JWT; an opaque
 * `sb_publishable_...` / `sb_secret_...` key maps to the anon / service_role JWT).
 * See https://github.com/supabase/supabase/blob/master/docker/volumes/api/kong.yml.
 */
import { gatewayErrors } from "./errors.js";

export interface ApiKeys {
  anonKey?: string | undefined;
  serviceRoleKey?: string | undefined;
  publishableKey?: string | undefined;
  secretKey?: string | undefined;
}

export class KeyRing {
  /** Accepted key -> the bearer token it stands for. */
  private readonly tokens = new Map<string, string>();

  constructor(keys: ApiKeys) {
    if (keys.anonKey) this.tokens.set(keys.anonKey, keys.anonKey);
    if (keys.serviceRoleKey) this.tokens.set(keys.serviceRoleKey, keys.serviceRoleKey);
    if (keys.publishableKey && keys.anonKey) this.tokens.set(keys.publishableKey, keys.anonKey);
    if (keys.secretKey && keys.serviceRoleKey) this.tokens.set(keys.secretKey, keys.serviceRoleKey);
  }

  /** Without any configured key there is nothing to check (the gateway warns at start-up). */
  get enforcing(): boolean {
    return this.tokens.size > 0;
  }

  /** Throws the key-auth error for a missing or unknown key; returns the key's token. */
  check(apikey: string | undefined): string | undefined {
    if (!this.enforcing) return apikey;
    if (apikey === undefined || apikey === "") throw gatewayErrors.noApiKey();
    const token = this.tokens.get(apikey);
    if (token === undefined) throw gatewayErrors.invalidApiKey();
    return token;
  }

  /**
   * The Authorization header to send upstream: the caller's own, unless it is absent or an
   * opaque key (`Bearer sb_...`), in which case the key's token.
   */
  authorization(current: string | undefined, apikey: string | undefined): string | undefined {
    if (current !== undefined && current !== "" && !/^Bearer sb_/i.test(current)) return current;
    const token = apikey === undefined ? undefined : (this.tokens.get(apikey) ?? apikey);
    return token ? `Bearer ${token}` : current;
  }
}

/** The key from the `apikey` header, else the `apikey` query parameter (as Kong's key-auth reads it). */
export function apiKeyOf(headers: Record<string, string | string[] | undefined>, url: string): string | undefined {
  const header = headers.apikey;
  if (typeof header === "string" && header !== "") return header;
  if (Array.isArray(header) && header[0]) return header[0];
  const query = url.indexOf("?");
  if (query === -1) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get("apikey") ?? undefined;
}

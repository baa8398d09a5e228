/**
 * Keys from `jwk_url`: fetched on first use, kept until the response's Cache-Control max-age
 * (or s-maxage, or Expires) runs out, and fetched again when a token names a key id the set
 * does not have (at most once per `unknownKidCooldownMs`). Without any expiry the keys are kept,
 * as Hasura does.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters } from "jose";
import { jwkFetchFailed, jwkNotOk, jwkParseFailed } from "../errors/index.js";

export interface JwksOptions {
  /** Minimum time between two fetches caused by unknown key ids (default 5 s). */
  unknownKidCooldownMs?: number;
  /** Request timeout (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

type KeyResolver = ReturnType<typeof createLocalJWKSet>;
type ResolvedKey = Awaited<ReturnType<KeyResolver>>;

/** When the fetched keys stop being fresh (ms since epoch), or null to keep them. */
export function jwksExpiry(headers: Headers, now: number): number | null {
  const cacheControl = headers.get("cache-control");
  if (cacheControl) {
    const directives = new Map(
      cacheControl.split(",").map((part) => {
        const [name = "", value] = part.trim().split("=", 2);
        return [name.toLowerCase(), value?.replace(/^"|"$/g, "")] as const;
      }),
    );
    const age = directives.get("s-maxage") ?? directives.get("max-age");
    const seconds = age !== undefined && /^\d+$/.test(age) ? Number(age) : null;
    if (directives.has("must-revalidate")) return now + (seconds ?? 0) * 1000;
    if (directives.has("no-cache") || directives.has("no-store")) return now;
    if (seconds !== null) return now + seconds * 1000;
  }
  const expires = headers.get("expires");
  if (expires) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? now : at;
  }
  return null;
}

export class JwksCache {
  private resolver: KeyResolver | null = null;
  private expiresAt: number | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(
    readonly url: string,
    private readonly options: JwksOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Fetches the key set now (for instance at start-up, to fail early). */
  refresh(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** The key for a token's header; usable as jose's key resolver. */
  async getKey(header: JWSHeaderParameters): Promise<ResolvedKey> {
    const stale = this.expiresAt !== null && this.now() >= this.expiresAt;
    if (!this.resolver || stale) await this.refreshKeepingOld();
    try {
      return await (this.resolver as KeyResolver)(header);
    } catch (error) {
      const cooldown = this.options.unknownKidCooldownMs ?? 5000;
      const unknown = error instanceof errors.JWKSNoMatchingKey && header.kid !== undefined;
      if (!unknown || this.now() - this.fetchedAt < cooldown) throw error;
      await this.refreshKeepingOld();
      return (this.resolver as KeyResolver)(header);
    }
  }

  /** Refreshes; when that fails but older keys exist, goes on with them. */
  private async refreshKeepingOld(): Promise<void> {
    try {
      await this.refresh();
    } catch (error) {
      if (!this.resolver) throw error;
    }
  }

  private async fetchKeys(): Promise<void> {
    this.fetchedAt = this.now();
    let response: Response;
    try {
      response = await fetch(this.url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });
    } catch (error) {
      throw jwkFetchFailed((error as Error).message, error);
    }
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel();
      throw jwkNotOk(this.url);
    }
    let jwks: JSONWebKeySet;
    try {
      jwks = (await response.json()) as JSONWebKeySet;
      this.resolver = createLocalJWKSet(jwks);
    } catch (error) {
      throw jwkParseFailed(this.url, error);
    }
    this.expiresAt = jwksExpiry(response.headers, this.now());
  }
}

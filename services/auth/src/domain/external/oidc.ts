/**
 * OpenID Connect: discovery documents and ID-token verification with the issuer's published keys
 * (jose's remote JWK set), kept for an hour as GoTrue's OIDC provider cache keeps them
 * (EXTERNAL_OIDC_PROVIDER_CACHE_TTL; supabase/auth internal/api/provider/oidc_cache.go). The
 * checks are go-oidc's IDTokenVerifier's, which GoTrue uses: signature, `exp`, `iss`, `aud`, and
 * `at_hash` when an access token is at hand (internal/api/provider/oidc.go ParseIDToken).
 */
import { createHash } from "node:crypto";
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, type JWTPayload, jwtVerify } from "jose";
import { boundedText } from "./oauth-client.js";
import type { IdTokenCheck } from "./types.js";

const CACHE_MS = 3_600_000;
const TIMEOUT_MS = 10_000;

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
}

interface Entry {
  expires: number;
  discovery: Promise<Discovery>;
  keys?: ReturnType<typeof createRemoteJWKSet>;
}

export class IdTokenError extends Error {}

const cache = new Map<string, Entry>();

async function fetchDiscovery(issuer: string): Promise<Discovery> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json" } });
  const body = await boundedText(response);
  if (!response.ok) throw new Error(`the discovery document of ${issuer} answered ${response.status}`);
  const document = JSON.parse(body) as Partial<Discovery>;
  if (!document.authorization_endpoint || !document.token_endpoint || !document.jwks_uri) {
    throw new Error(`the discovery document of ${issuer} lacks its endpoints`);
  }
  return document as Discovery;
}

function entry(issuer: string): Entry {
  const now = Date.now();
  let found = cache.get(issuer);
  if (!found || found.expires < now) {
    const discovery = fetchDiscovery(issuer);
    found = { expires: now + CACHE_MS, discovery };
    cache.set(issuer, found);
    // A failed discovery is not kept: the next request tries again.
    discovery.catch(() => {
      if (cache.get(issuer) === found) cache.delete(issuer);
    });
  }
  return found;
}

/** The issuer's discovery document (cached). */
export function discover(issuer: string): Promise<Discovery> {
  return entry(issuer).discovery;
}

async function keysOf(issuer: string) {
  const found = entry(issuer);
  const document = await found.discovery;
  found.keys ??= createRemoteJWKSet(new URL(document.jwks_uri), {
    timeoutDuration: TIMEOUT_MS,
    // The key set is read up to the same size as any provider answer.
    [customFetch]: async (url, options) => {
      const response = await fetch(url, options);
      const type = response.headers.get("content-type") ?? "application/json";
      return new Response(await boundedText(response), { status: response.status, headers: { "content-type": type } });
    },
  });
  return found.keys;
}

const HASHES: Record<string, string> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/** OpenID Connect Core 3.1.3.6: the left half of the hash of the access token, base64url. */
function accessTokenHash(alg: string, accessToken: string): string {
  const hash = alg === "EdDSA" ? "sha512" : HASHES[alg.slice(-3)];
  if (!hash) throw new IdTokenError(`unsupported ID token algorithm ${alg}`);
  const digest = createHash(hash).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

export async function verifyIdToken(idToken: string, check: IdTokenCheck): Promise<JWTPayload> {
  const keys = await keysOf(check.discoveryIssuer);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys, check.audiences ? { audience: [...check.audiences] } : {}));
  } catch (error) {
    throw new IdTokenError(`invalid ID token: ${(error as Error).message}`);
  }
  const iss = payload.iss ?? "";
  const issuerOk = typeof check.issuer === "string" ? iss === check.issuer : check.issuer(iss);
  if (!issuerOk) throw new IdTokenError(`ID token issued by an unexpected issuer: ${iss}`);
  if (typeof payload.at_hash === "string" && check.accessToken) {
    const { alg } = decodeProtectedHeader(idToken);
    if (accessTokenHash(alg ?? "", check.accessToken) !== payload.at_hash)
      throw new IdTokenError("access token hash does not match value in ID token");
  }
  return payload;
}

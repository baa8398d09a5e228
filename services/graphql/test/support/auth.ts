/** Helpers for the auth suites: configs, signed tokens and error assertions. */
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { expect } from "vitest";
import { type AuthConfig, type AuthSettings, createAuthConfig } from "../../src/engine/auth/config.js";
import { resolveSession } from "../../src/engine/auth/session.js";
import { HasuraError } from "../../src/engine/errors/index.js";
import type { Session } from "../../src/engine/request/session.js";

export const ADMIN_SECRET = "the-admin-secret";
export const HS_SECRET = "a-very-long-hmac-secret-of-at-least-32-bytes";
export const NAMESPACE = "https://hasura.io/jwt/claims";

export function jwtAuth(secret: Record<string, unknown>, extra: AuthSettings = {}): AuthConfig {
  return createAuthConfig({ adminSecret: ADMIN_SECRET, jwtSecret: JSON.stringify(secret), ...extra });
}

export interface KeyPair {
  privateKey: CryptoKey;
  publicPem: string;
}

export async function keyPair(alg: "RS256" | "ES256" | "Ed25519"): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicPem: await exportSPKI(publicKey) };
}

/** An RS256 key published in a JWKS under `kid`, with the private half to sign with. */
export interface Signer {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signer(kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

export const secs = (offset = 0): number => Math.floor(Date.now() / 1000) + offset;

export function hasuraClaims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { "x-hasura-allowed-roles": ["user", "editor"], "x-hasura-default-role": "user", "x-hasura-user-id": "42", ...extra };
}

export async function sign(
  payload: JWTPayload,
  key: CryptoKey | Uint8Array,
  alg: string,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg, typ: "JWT", ...header }).sign(key);
}

export const hsKey = (secret = HS_SECRET): Uint8Array => new TextEncoder().encode(secret);

export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

export function session(headers: Record<string, string | undefined>, config: AuthConfig, body?: unknown): Promise<Session> {
  return resolveSession({ headers, body }, config);
}

/** Awaits a rejection and checks it is the HasuraError Hasura would answer. */
export async function rejects(pending: Promise<unknown>, code: string, message: string, status = 400): Promise<HasuraError> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HasuraError);
  const e = error as HasuraError;
  expect({ code: e.code, message: e.message, status: e.status, path: e.path }).toEqual({ code, message, status, path: "$" });
  return e;
}

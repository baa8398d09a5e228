/**
 * AUTH_JWT_KEYS (GoTrue's GOTRUE_JWT_KEYS): a JSON array of JWKs (or `{"keys": [...]}`).
 * Exactly one key signs (its `key_ops` contain `sign`; a lone key without `key_ops` signs
 * too); every key verifies. Keys are turned into KeyObjects here, so a malformed key stops
 * start-up with the rest of the configuration problems.
 */
import { createPrivateKey, createPublicKey, createSecretKey, type JsonWebKey, type KeyObject } from "node:crypto";

export const SIGNING_ALGORITHMS = ["RS256", "RS512", "ES256", "ES512", "EdDSA", "HS256"] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export interface ConfiguredKey {
  kid: string;
  alg: SigningAlgorithm;
  /** Present on the one signing key. */
  signingKey?: KeyObject;
  /** The public key (or the secret, for HS256) tokens are verified with. */
  verifyKey: KeyObject;
  /** The public JWK for /.well-known/jwks.json; absent for HMAC keys, which are never published. */
  publicJwk?: Record<string, unknown>;
}

interface RawJwk extends JsonWebKey {
  kid?: unknown;
  alg?: unknown;
  key_ops?: unknown;
}

function defaultAlg(jwk: RawJwk): SigningAlgorithm | undefined {
  if (jwk.kty === "RSA") return "RS256";
  if (jwk.kty === "oct") return "HS256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "EC" && jwk.crv === "P-521") return "ES512";
  return undefined;
}

function fits(alg: SigningAlgorithm, jwk: RawJwk): boolean {
  switch (alg) {
    case "RS256":
    case "RS512":
      return jwk.kty === "RSA";
    case "ES256":
      return jwk.kty === "EC" && jwk.crv === "P-256";
    case "ES512":
      return jwk.kty === "EC" && jwk.crv === "P-521";
    case "EdDSA":
      return jwk.kty === "OKP" && jwk.crv === "Ed25519";
    case "HS256":
      return jwk.kty === "oct";
  }
}

function isPrivate(jwk: RawJwk): boolean {
  return jwk.kty === "oct" ? typeof jwk.k === "string" : typeof jwk.d === "string";
}

export function publicJwkOf(key: KeyObject, kid: string, alg: SigningAlgorithm): Record<string, unknown> {
  return { ...key.export({ format: "jwk" }), kid, alg, use: "sig", key_ops: ["verify"] };
}

function readKey(jwk: RawJwk, position: number, signs: boolean): ConfiguredKey {
  const where = `key ${position + 1}`;
  if (typeof jwk.kid !== "string" || jwk.kid === "") throw new Error(`${where} needs a "kid"`);
  const alg =
    jwk.alg === undefined
      ? defaultAlg(jwk)
      : (SIGNING_ALGORITHMS as readonly unknown[]).includes(jwk.alg)
        ? (jwk.alg as SigningAlgorithm)
        : undefined;
  if (!alg) throw new Error(`${where} (${jwk.kid}): "alg" must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  if (!fits(alg, jwk)) throw new Error(`${where} (${jwk.kid}): a ${String(jwk.kty)} key cannot be used with ${alg}`);
  if (signs && !isPrivate(jwk)) throw new Error(`${where} (${jwk.kid}) signs, so it must include its private part`);
  try {
    if (jwk.kty === "oct") {
      const secret = createSecretKey(Buffer.from(String(jwk.k), "base64url"));
      return { kid: jwk.kid, alg, verifyKey: secret, ...(signs ? { signingKey: secret } : {}) };
    }
    const material = { ...jwk } as JsonWebKey;
    delete (material as RawJwk).key_ops;
    const privateKey = isPrivate(jwk) ? createPrivateKey({ key: material, format: "jwk" }) : undefined;
    const publicKey = privateKey ? createPublicKey(privateKey) : createPublicKey({ key: material, format: "jwk" });
    return {
      kid: jwk.kid,
      alg,
      verifyKey: publicKey,
      publicJwk: publicJwkOf(publicKey, jwk.kid, alg),
      ...(signs && privateKey ? { signingKey: privateKey } : {}),
    };
  } catch (error) {
    throw new Error(`${where} (${jwk.kid}) is not a valid key: ${(error as Error).message}`);
  }
}

export function parseJwtKeys(raw: string | undefined): ConfiguredKey[] {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error("must be a JSON array of JWKs");
  }
  const items = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(items) || items.length === 0 || !items.every((k) => k !== null && typeof k === "object")) {
    throw new Error('must be a non-empty JSON array of JWKs (or {"keys": [...]})');
  }
  const jwks = items as RawJwk[];
  const ops = (jwk: RawJwk) => (Array.isArray(jwk.key_ops) ? (jwk.key_ops as unknown[]) : undefined);
  let signers = jwks.map((jwk) => ops(jwk)?.includes("sign") === true);
  if (!signers.includes(true) && jwks.length === 1 && ops(jwks[0] as RawJwk) === undefined) signers = [true];
  const count = signers.filter(Boolean).length;
  if (count !== 1) throw new Error(`exactly one key must have "sign" in its key_ops, found ${count}`);
  const keys = jwks.map((jwk, i) => readKey(jwk, i, signers[i] === true));
  const kids = new Set<string>();
  for (const key of keys) {
    if (kids.has(key.kid)) throw new Error(`kid "${key.kid}" is used twice`);
    kids.add(key.kid);
  }
  return keys;
}

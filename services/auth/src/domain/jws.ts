/**
 * Compact JWS signing on node:crypto. jose signs through WebCrypto, whose per-call job and promise
 * overhead (about 0.15 ms) is as large as an HMAC or ECDSA signature itself; every session response
 * signs a token, so signing goes here. Asymmetric signatures run on libuv's thread pool, keeping the
 * event loop free; verification stays with jose.
 */
import { createHmac, type KeyObject, sign } from "node:crypto";
import type { SigningAlgorithm } from "../config.js";

const DIGEST: Record<SigningAlgorithm, string | null> = {
  RS256: "sha256",
  RS512: "sha512",
  ES256: "sha256",
  ES512: "sha512",
  EdDSA: null,
  HS256: "sha256",
};

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

function signature(alg: SigningAlgorithm, key: KeyObject, input: Buffer): Promise<Buffer> {
  if (alg === "HS256") return Promise.resolve(createHmac("sha256", key).update(input).digest());
  // JWS wants ECDSA signatures as r || s, not DER.
  const signingKey = alg === "ES256" || alg === "ES512" ? { key, dsaEncoding: "ieee-p1363" as const } : key;
  return new Promise((resolve, reject) => {
    sign(DIGEST[alg], input, signingKey, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** `header.payload.signature`, base64url-encoded, as RFC 7515's compact serialization. */
export async function signCompact(alg: SigningAlgorithm, key: KeyObject, header: object, payload: object): Promise<string> {
  const input = `${encode(header)}.${encode(payload)}`;
  const sig = await signature(alg, key, Buffer.from(input, "ascii"));
  return `${input}.${sig.toString("base64url")}`;
}

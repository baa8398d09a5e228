/** Our compact JWS signer against an independent verifier (jose) for every signing algorithm. */
import { createPublicKey, createSecretKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import type { SigningAlgorithm } from "../src/config.js";
import { signCompact } from "../src/domain/jws.js";

function keyPair(alg: SigningAlgorithm): { signing: KeyObject; verifying: KeyObject } {
  if (alg === "HS256") {
    const secret = createSecretKey(Buffer.from("a-shared-secret-of-at-least-thirty-two-bytes"));
    return { signing: secret, verifying: secret };
  }
  const { privateKey } =
    alg === "RS256" || alg === "RS512"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : alg === "EdDSA"
        ? generateKeyPairSync("ed25519")
        : generateKeyPairSync("ec", { namedCurve: alg === "ES256" ? "P-256" : "P-521" });
  return { signing: privateKey, verifying: createPublicKey(privateKey) };
}

describe("compact JWS signing", () => {
  const claims = {
    sub: "1c1a9a4e-5c63-4c4e-9f51-4b1c2a0e0c11",
    role: "authenticated",
    amr: [{ method: "password", timestamp: 1 }],
    email: "é@example.com",
  };

  it.each(["RS256", "RS512", "ES256", "ES512", "EdDSA", "HS256"] as const)("signs %s tokens that jose verifies", async (alg) => {
    const { signing, verifying } = keyPair(alg);
    const token = await signCompact(alg, signing, { alg, typ: "JWT", kid: "k1" }, claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg, typ: "JWT", kid: "k1" });
    const { payload } = await jwtVerify(token, verifying, { algorithms: [alg] });
    expect(payload).toEqual(claims);
  });

  it("produces a signature that fails verification once the payload is altered", async () => {
    const { signing, verifying } = keyPair("ES256");
    const [header, , signature] = (await signCompact("ES256", signing, { alg: "ES256" }, claims)).split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: "service_role" })).toString("base64url")}.${signature}`;
    await expect(jwtVerify(forged, verifying)).rejects.toThrow(/signature verification failed/);
  });
});

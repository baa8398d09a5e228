/**
 * The keys tokens are signed and verified with. Signing uses the AUTH_JWT_KEYS key marked for
 * signing, else JWT_SECRET (HS256) when the configured algorithm is HS256 (see readJwt: the
 * default when the secret is the only key material), else a key pair generated once and stored
 * in the database (created under an advisory lock, so instances starting together agree on one
 * key). Verification accepts every configured and stored key, and the HS256 secret when one is
 * set; a token's `alg` must match the key its `kid` names.
 */
import { createPrivateKey, createPublicKey, createSecretKey, generateKeyPair, type KeyObject, randomUUID } from "node:crypto";
import { promisify } from "node:util";
import type { Database, Logger } from "@platform/core";
import { type JWTPayload, errors as joseErrors, jwtVerify, type ProtectedHeaderParameters } from "jose";
import { publicJwkOf } from "../config/jwt-keys.js";
import type { AuthConfig, ConfiguredKey, SigningAlgorithm } from "../config.js";
import { lockKey } from "../db/migrations.js";
import type { SigningKeyRow } from "../db/rows.js";
import { allSigningKeys, insertSigningKey, latestSigningKey, lockSigningKeys } from "../db/signing-keys.js";
import type { AuthTables } from "../db/tables.js";
import { errors } from "./errors.js";
import { signCompact } from "./jws.js";

const generate = promisify(generateKeyPair);

interface Signer {
  kid: string | undefined;
  alg: SigningAlgorithm;
  key: KeyObject;
}

async function newKeyPair(alg: Exclude<SigningAlgorithm, "HS256">): Promise<KeyObject> {
  if (alg === "RS256" || alg === "RS512") return (await generate("rsa", { modulusLength: 2048 })).privateKey;
  if (alg === "EdDSA") return (await generate("ed25519")).privateKey;
  return (await generate("ec", { namedCurve: alg === "ES256" ? "P-256" : "P-521" })).privateKey;
}

function keyFromRow(row: SigningKeyRow): ConfiguredKey {
  const privateKey = createPrivateKey({ key: row.private_jwk as never, format: "jwk" });
  const alg = row.algorithm as SigningAlgorithm;
  const verifyKey = createPublicKey(privateKey);
  return { kid: row.id, alg, verifyKey, signingKey: privateKey, publicJwk: publicJwkOf(verifyKey, row.id, alg) };
}

/** The stored key for `alg`, created first when there is none. */
async function storedKey(db: Database, tables: AuthTables, alg: Exclude<SigningAlgorithm, "HS256">) {
  return db.transaction(async (tx) => {
    await lockSigningKeys(tx, lockKey("signing-keys", tables.schema));
    const existing = await latestSigningKey(tx, tables, alg);
    if (existing) return { row: existing, created: false };
    const privateKey = await newKeyPair(alg);
    const id = randomUUID();
    const row: SigningKeyRow = {
      id,
      algorithm: alg,
      private_jwk: privateKey.export({ format: "jwk" }) as Record<string, unknown>,
      public_jwk: publicJwkOf(createPublicKey(privateKey), id, alg),
    };
    await insertSigningKey(tx, tables, { id, algorithm: alg, privateJwk: row.private_jwk, publicJwk: row.public_jwk });
    return { row, created: true };
  });
}

function reasonOf(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "token has invalid claims: token is expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `token has invalid claims: ${error.message}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "token signature is invalid: signature is invalid";
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) {
    return "token is unverifiable: signing method is invalid";
  }
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid) return "token is malformed";
  if (error instanceof KeyLookupError) return `token is unverifiable: ${error.message}`;
  return "token is malformed";
}

class KeyLookupError extends Error {}

export class KeyRing {
  private readonly byKid = new Map<string, ConfiguredKey>();
  private readonly secret: KeyObject | undefined;
  private lastReload = 0;

  private constructor(
    jwt: AuthConfig["jwt"],
    private readonly signer: Signer,
    keys: ConfiguredKey[],
    private readonly reload: () => Promise<ConfiguredKey[]>,
  ) {
    this.secret = jwt.secret === undefined ? undefined : createSecretKey(Buffer.from(jwt.secret, "utf8"));
    for (const key of keys) this.byKid.set(key.kid, key);
  }

  static async load(jwt: AuthConfig["jwt"], db: Database, tables: AuthTables, logger: Logger): Promise<KeyRing> {
    const fromDb = async () => (await allSigningKeys(db, tables)).map(keyFromRow);
    if (jwt.keys.length > 0) {
      const signing = jwt.keys.find((k) => k.signingKey) as ConfiguredKey;
      const signer = { kid: signing.kid, alg: signing.alg, key: signing.signingKey as KeyObject };
      return new KeyRing(jwt, signer, [...(await fromDb()), ...jwt.keys], async () => [...(await fromDb()), ...jwt.keys]);
    }
    if (jwt.algorithm === "HS256") {
      // readJwt refuses HS256 without a secret; this only narrows the type.
      if (jwt.secret === undefined) throw new Error("HS256 signing needs JWT_SECRET");
      const signer = { kid: jwt.keyId, alg: "HS256" as const, key: createSecretKey(Buffer.from(jwt.secret, "utf8")) };
      return new KeyRing(jwt, signer, await fromDb(), fromDb);
    }
    const { row, created } = await storedKey(db, tables, jwt.algorithm);
    logger.info(
      { kid: row.id, alg: row.algorithm },
      created ? "generated a JWT signing key and stored it in the database" : "JWT signing key loaded",
    );
    const signing = keyFromRow(row);
    return new KeyRing(jwt, { kid: signing.kid, alg: signing.alg, key: signing.signingKey as KeyObject }, await fromDb(), fromDb);
  }

  get signingAlgorithm(): SigningAlgorithm {
    return this.signer.alg;
  }

  sign(claims: JWTPayload): Promise<string> {
    const header = { alg: this.signer.alg, typ: "JWT", ...(this.signer.kid ? { kid: this.signer.kid } : {}) };
    return signCompact(this.signer.alg, this.signer.key, header, claims);
  }

  /** The public keys, for /.well-known/jwks.json. HMAC keys are never listed. */
  jwks(): { keys: Record<string, unknown>[] } {
    return { keys: [...this.byKid.values()].flatMap((key) => (key.publicJwk ? [key.publicJwk] : [])) };
  }

  /** Verifies signature and expiry; throws the bad_jwt error GoTrue answers. */
  async verify(token: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(token, (header) => this.keyFor(header));
      return payload;
    } catch (error) {
      if (error instanceof KeyLookupError && (await this.reloadOnce())) {
        try {
          return (await jwtVerify(token, (header) => this.keyFor(header))).payload;
        } catch (retryError) {
          throw errors.badJwt(reasonOf(retryError));
        }
      }
      throw errors.badJwt(reasonOf(error));
    }
  }

  private keyFor(header: ProtectedHeaderParameters): KeyObject {
    const alg = header.alg;
    const key = header.kid !== undefined ? this.byKid.get(header.kid) : undefined;
    if (key) {
      if (key.alg !== alg) throw new KeyLookupError(`signing method ${String(alg)} does not match key ${key.kid}`);
      return key.verifyKey;
    }
    // Tokens without a known kid verify with the shared secret, as GoTrue does, and only as HS256.
    if (alg === "HS256" && this.secret) return this.secret;
    throw new KeyLookupError(`unrecognized JWT kid ${String(header.kid)} for algorithm ${String(alg)}`);
  }

  /** Another instance may have stored a newer key; look again, at most once every ten seconds. */
  private async reloadOnce(): Promise<boolean> {
    if (Date.now() - this.lastReload < 10_000) return false;
    this.lastReload = Date.now();
    const before = this.byKid.size;
    for (const key of await this.reload()) this.byKid.set(key.kid, key);
    return this.byKid.size > before;
  }
}

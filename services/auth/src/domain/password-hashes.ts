/**
 * Stored password hashes other than our own bcrypt ones: POST /admin/users accepts a
 * `password_hash` (bcrypt, or an argon2i / argon2id PHC string, as GoTrue does), and sign-in
 * verifies whichever kind is stored. Imported hashes are kept as they are, never re-hashed.
 */
import { verify as argon2Verify } from "@node-rs/argon2";
import { verify as bcryptVerify } from "@node-rs/bcrypt";
import { errors } from "./errors.js";

const BCRYPT = /^\$2[abxy]?\$(\d\d)\$[./A-Za-z0-9]{53}$/;
// https://github.com/P-H-C/phc-string-format/blob/master/phc-sf-spec.md#argon2-encoding
const ARGON2 = /^\$(argon2(?:d|i|id))\$v=(16|19)\$m=(\d+),t=(\d+),p=(\d+)(?:,keyid=([^,$]+))?(?:,data=([^$]+))?\$([^$]*)\$(.*)$/;

/** GoTrue's limits on imported argon2 parameters (memory in KiB). */
const ARGON2_LIMITS = { memory: 1024 * 1024, time: 20, parallelism: 16 };

function argon2Problem(hash: string): string | undefined {
  const match = ARGON2.exec(hash);
  if (!match) return "incorrect argon2 hash format";
  const [, alg, version, m, t, p, keyid, data, salt, digest] = match as unknown as string[];
  if (alg !== "argon2i" && alg !== "argon2id")
    return `argon2 hash uses unsupported algorithm "${alg}"; only argon2i and argon2id are supported`;
  if (version !== "19") return `argon2 hash uses unsupported version "${version}"; only 19 is supported`;
  if (data !== undefined) return "argon2 hashes with the data parameter are not supported";
  if (keyid !== undefined) return "argon2 hashes with the keyid parameter are not supported";
  if (Number(m) > ARGON2_LIMITS.memory) return "argon2 hash m parameter exceeds the memory limit";
  if (Number(t) > ARGON2_LIMITS.time || Number(t) < 1) return "argon2 hash t parameter is out of range";
  if (Number(p) > ARGON2_LIMITS.parallelism || Number(p) < 1) return "argon2 hash p parameter is out of range";
  if (!salt || !digest) return "argon2 hash has no salt or no hash";
  return undefined;
}

/** Throws validation_failed unless `hash` is a bcrypt hash or an acceptable argon2 PHC string. */
export function checkImportedHash(hash: string): void {
  if (hash.startsWith("$argon2")) {
    const problem = argon2Problem(hash);
    if (problem) throw errors.invalidPasswordHash(problem);
    return;
  }
  if (hash.startsWith("$fbscrypt$")) throw errors.invalidPasswordHash("Firebase scrypt hashes are not supported");
  const bcrypt = BCRYPT.exec(hash);
  if (!bcrypt || Number(bcrypt[1]) < 4 || Number(bcrypt[1]) > 31) throw errors.invalidPasswordHash("not a bcrypt or argon2 hash");
}

/** Compares a password with a stored hash of any kind we accept; a hash of another kind never matches. */
export async function verifyStoredHash(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith("$argon2")) {
    if (argon2Problem(stored)) return false;
    try {
      return await argon2Verify(stored, password);
    } catch {
      return false;
    }
  }
  if (!BCRYPT.test(stored)) return false;
  return bcryptVerify(password, stored);
}

import { Random as SeededRandom } from "@platform/core";

/**
 * Seeded pseudo-random numbers for the demo catalog (core's mulberry32 `Random`): the same seed
 * gives the same file, so benchmarks and tests are repeatable; plus the shapes the catalog needs.
 */
export class Random extends SeededRandom {
  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** A random UUID v4 string. */
  uuid(): string {
    const hex = this.hex(32).split("");
    hex[12] = "4";
    hex[16] = "89ab"[this.int(4)] ?? "8";
    const h = hex.join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** `length` random lower-case hex digits. */
  hex(length: number): string {
    let out = "";
    while (out.length < length) out += (this.int(0x10000) | 0x10000).toString(16).slice(1);
    return out.slice(0, length);
  }
}

/** A stateless 32-bit hash of two integers, for values that must not depend on generation order. */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x85ebca6b, 0xcc9e2d51) ^ Math.imul(b ^ 0x27d4eb2f, 0x1b873593);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * 64 hex digits (the shape of the converter's sha256 content fingerprint) derived from the content
 * integers: equal content gives equal fingerprints, and it costs a fraction of hashing text, which
 * matters over millions of snapshots.
 */
export function fingerprint(a: number, b: number, c: number, d: number, e: number): string {
  // Two 32-bit seeds so that distinct contents practically never share a fingerprint.
  let h = mix(mix(mix(a, b), mix(c, d)), e) | 1;
  let g = mix(mix(e, a), mix(b ^ d, c)) | 1;
  let out = "";
  for (let word = 0; word < 8; word++) {
    // xorshift32 steps spread the seeds over 256 bits.
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    const w = word % 2 === 0 ? h : h ^ g;
    if (word % 2 === 1) {
      g ^= g << 13;
      g ^= g >>> 17;
      g ^= g << 5;
    }
    out += `${HEX[(w >>> 24) & 255]}${HEX[(w >>> 16) & 255]}${HEX[(w >>> 8) & 255]}${HEX[w & 255]}`;
  }
  return out;
}

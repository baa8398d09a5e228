/** The generative test's seeded generator: core's `Random`, plus derived streams and samples. */
import { Random } from "@platform/core";

export class Rng extends Random {
  /** A generator for one item of a run: the same (seed, parts) always gives the same sequence. */
  static derive(seed: number, ...parts: Array<string | number>): Rng {
    let h = seed >>> 0 || 1;
    for (const ch of parts.join("\u0000")) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x9e3779b1) >>> 0;
    return new Rng(h);
  }

  /** Up to `max` distinct items, in random order. */
  some<T>(items: readonly T[], max: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, Math.min(max, copy.length));
  }
}

/** Choices the generator makes with its seeded PRNG, beyond core's Random. */
import type { Random } from "@platform/core";

/** `k` distinct indices in [0, n), in the order drawn (k <= n). */
export function sample(rng: Random, n: number, k: number, exclude?: number): number[] {
  const available = exclude === undefined ? n : n - 1;
  if (k > available) throw new RangeError(`cannot draw ${k} distinct of ${available}`);
  const picked = new Set<number>();
  const order: number[] = [];
  while (order.length < k) {
    const i = rng.int(n);
    if (i === exclude || picked.has(i)) continue;
    picked.add(i);
    order.push(i);
  }
  return order;
}

/** An index in [0, n) where low indices are likelier: uniform raised to `power` (> 1). */
export function skewed(rng: Random, n: number, power: number): number {
  return Math.min(n - 1, Math.floor(n * rng.next() ** power));
}

/** Password hashing runs at most PASSWORD_HASH_CONCURRENCY jobs at once, the rest in order. */
import { describe, expect, it } from "vitest";
import { PasswordHasher, Slots } from "../src/domain/passwords.js";

describe("hashing slots", () => {
  it("runs no more jobs at once than it has slots, in arrival order, and survives a failing job", async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const job = (n: number) => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      order.push(n);
      if (n === 3) throw new Error("boom");
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5, 6].map((n) => slots.run(job(n))));
    expect(peak).toBe(2);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect(order.slice(0, 2).sort()).toEqual([1, 2]);
    expect(running).toBe(0);
  });

  it("hashes and verifies through one slot", async () => {
    const hasher = new PasswordHasher(4, 1);
    const hashes = await Promise.all(["a-secret", "b-secret", "c-secret"].map((p) => hasher.hash(p)));
    expect(await hasher.verify("b-secret", hashes[1])).toBe(true);
    expect(await hasher.verify("a-secret", hashes[1])).toBe(false);
    expect(await hasher.verify("anything", null)).toBe(false);
  });
});

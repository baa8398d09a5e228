/**
 * Oversized requests leave nothing behind: after many distinct ones (a 70,000-value `_in` as a
 * literal and as a variable, 20,000 `_or` branches, 1,000 root fields), the engine's heap returns
 * to its baseline once garbage is collected. The document, validation and statement caches keep
 * small operations (the ones applications repeat), not every large one an attacker sends; before
 * they were bounded by weight, twelve such rounds kept ~800 MB.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { Lru } from "../src/engine/request/lru.js";
import { ADMIN, metadataWith, useTestEngine } from "./support/engine.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const SCHEMA = `CREATE TABLE t (id serial PRIMARY KEY, name text); INSERT INTO t (name) VALUES ('a'), ('b');`;
const metadata = (): Metadata => metadataWith([{ table: { schema: "public", name: "t" } }]);

/** The heap in use once everything unreachable has been collected (a few passes: finalizers, weak maps). */
async function settledHeapMb(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe("memory", () => {
  const suite = useTestEngine("pglite", { schema: SCHEMA, metadata });
  const run = async (query: string, variables?: Record<string, unknown>) =>
    JSON.parse(await suite.engine.execute({ query, ...(variables ? { variables } : {}) }, ADMIN));
  const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);

  it("returns to its baseline after many distinct oversized requests", async () => {
    // Warm-up: the role's schema, the statement paths, the JIT.
    for (let i = 0; i < 20; i++) await run(`{ t(where: {id: {_eq: ${i}}}) { id } }`);
    const baseline = await settledHeapMb();
    for (let round = 0; round < 8; round++) {
      // Each request's text differs, so no cache can answer it: every one is parsed, validated and planned.
      const literal = await run(`{ t(where: {id: {_in: [${ids(70_000, round).join(",")}]}}) { id } }`);
      expect(literal.errors).toBeUndefined();
      const variable = await run(`query Q${round} ($ids: [Int!]) { t(where: {id: {_nin: $ids}}) { id } }`, { ids: ids(70_000) });
      expect(variable.errors).toBeUndefined();
      const w = { _or: ids(20_000, round).map((i) => ({ id: { _eq: i } })) };
      expect((await run(`query R${round} ($w: t_bool_exp) { t(where: $w) { id } }`, { w })).errors).toBeUndefined();
      const fields = ids(1_000).map((i) => `a${i}: t_by_pk(id: ${round}) { id }`);
      expect((await run(`{ ${fields.join(" ")} }`)).errors).toBeUndefined();
    }
    const after = await settledHeapMb();
    // Eight rounds held by any cache would keep hundreds of megabytes; what may remain is noise.
    expect(after - baseline).toBeLessThan(16);
  }, 180_000);

  it("bounds each cache by entries and weight, and keeps no entry heavier than its limit", () => {
    const cache = new Lru<number>(3, 100, 40);
    expect(cache.set("a", 1, 9)).toBe(true);
    expect(cache.set("b".repeat(50), 2)).toBe(false);
    expect(cache.get("b".repeat(50))).toBeUndefined();
    cache.set("c", 3, 29);
    cache.set("d", 4, 29);
    expect(cache.get("a")).toBe(1);
    // 10 + 30 + 30 + 40 > 100: the least recently used entry ("c") goes.
    cache.set("e", 5, 39);
    expect(cache.get("c")).toBeUndefined();
    expect([cache.get("a"), cache.get("d"), cache.get("e")]).toEqual([1, 4, 5]);
    expect(cache.weight).toBe(80);
    // A fourth entry: the least recently used ("a") goes.
    cache.set("f", 6);
    expect(cache.size).toBe(3);
    expect(cache.get("a")).toBeUndefined();
  });
});

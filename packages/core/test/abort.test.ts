/**
 * LightAbortController: AbortController's behaviour (one abort event, reason, throwIfAborted,
 * onabort, the default AbortError), and a database statement cancelled by its signal.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { LightAbortController, openDatabase } from "../src/index.js";

describe("LightAbortController", () => {
  it("aborts once, with its reason, to listeners and onabort", () => {
    const controller = new LightAbortController();
    const seen: unknown[] = [];
    controller.signal.addEventListener("abort", () => seen.push(controller.signal.reason));
    controller.signal.onabort = () => seen.push("onabort");
    expect(controller.signal.aborted).toBe(false);
    expect(() => controller.signal.throwIfAborted()).not.toThrow();
    const reason = new Error("time is up");
    controller.abort(reason);
    controller.abort(new Error("again"));
    expect(controller.signal.aborted).toBe(true);
    expect(seen).toEqual([reason, "onabort"]);
    expect(() => controller.signal.throwIfAborted()).toThrow("time is up");
  });

  it("gives an AbortError without a reason, and works where Node takes a signal", async () => {
    const controller = new LightAbortController();
    const waiting = sleep(10_000, undefined, { signal: controller.signal as AbortSignal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect((controller.signal.reason as DOMException).name).toBe("AbortError");
  });

  const url = process.env.TEST_DATABASE_URL?.trim();
  it.skipIf(!url)("cancels a running statement on PostgreSQL, and the pool stays usable", async () => {
    const db = await openDatabase({ url, maxConnections: 2 });
    try {
      const controller = new LightAbortController();
      const reason = new Error("client left");
      setTimeout(() => controller.abort(reason), 100);
      const started = performance.now();
      await expect(db.query({ text: "SELECT pg_sleep(5)", values: [] }, { signal: controller.signal })).rejects.toBe(reason);
      expect(performance.now() - started).toBeLessThan(2_000);
      const { rows } = await db.query<{ n: number }>({ text: "SELECT 1 AS n", values: [] });
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await db.close();
    }
  });
});

/**
 * LISTEN on a connection of its own: every NOTIFY on the channel reaches the handler with its
 * payload (a transaction's on commit, none on rollback), other channels' do not; on PostgreSQL
 * every channel of a Database shares one connection, closed once the last is let go, and a lost
 * listening connection is reported, listened again and reported back, and notifications flow
 * again; an attempt to listen again that fails is reported, and the next one follows.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, ident, openScratchDatabase, sql } from "../src/index.js";
import { open, type Target, targets } from "./targets.js";

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(targets)("listen on $name", (target: Target) => {
  let db: Database;
  const channel = `core_listen_${randomBytes(4).toString("hex")}`;
  beforeAll(async () => {
    db = await open(target);
  });
  afterAll(async () => db?.close());

  it("hands on each notification of its channel, a transaction's on commit only", async () => {
    const payloads: string[] = [];
    const stop = await db.listen(channel, { notify: (payload) => payloads.push(payload) });
    try {
      await db.query(sql`SELECT pg_notify(${channel}, ${"first"})`);
      await db.query(sql`SELECT pg_notify(${`${channel}_other`}, ${"elsewhere"})`);
      await db.transaction(async (tx) => {
        await tx.query(sql`SELECT pg_notify(${channel}, ${"committed"})`);
      });
      await db
        .transaction(async (tx) => {
          await tx.query(sql`SELECT pg_notify(${channel}, ${"rolled back"})`);
          throw new Error("roll back");
        })
        .catch(() => undefined);
      await db.query(sql`SELECT pg_notify(${channel}, ${"last"})`);
      await until(() => payloads.includes("last"));
      expect(payloads).toEqual(["first", "committed", "last"]);
    } finally {
      await stop();
    }
    await db.query(sql`SELECT pg_notify(${channel}, ${"after stop"})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(payloads).not.toContain("after stop");
  });

  it.runIf(target.name === "postgres")("listens to every channel on one connection, closed once the last is let go", async () => {
    const listening = async () =>
      (
        await db.query<{ n: number }>(
          // The listening connection's last statement: a LISTEN, or an UNLISTEN once a channel is let go.
          sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ~ '^(UN)?LISTEN ' AND pid <> pg_backend_pid()`,
        )
      ).rows[0]?.n;
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = await db.listen(`${channel}_a`, { notify: (payload) => first.push(payload) });
    const stopSecond = await db.listen(`${channel}_b`, { notify: (payload) => second.push(payload) });
    // A second listener of the same channel shares it too.
    const again: string[] = [];
    const stopAgain = await db.listen(`${channel}_a`, { notify: (payload) => again.push(payload) });
    expect(await listening()).toBe(1);
    await db.query(sql`SELECT pg_notify(${`${channel}_a`}, ${"a"}), pg_notify(${`${channel}_b`}, ${"b"})`);
    await until(() => first.length === 1 && second.length === 1 && again.length === 1);
    expect([first, second, again]).toEqual([["a"], ["b"], ["a"]]);
    await stopAgain();
    await stopFirst();
    await db.query(sql`SELECT pg_notify(${`${channel}_a`}, ${"a again"}), pg_notify(${`${channel}_b`}, ${"b again"})`);
    await until(() => second.length === 2);
    expect(first).toEqual(["a"]);
    expect(await listening()).toBe(1);
    await stopSecond();
    await until(async () => (await listening()) === 0);
  });

  it.runIf(target.name === "postgres")("reports a lost listening connection, listens again and says so", async () => {
    const payloads: string[] = [];
    const states: boolean[] = [];
    const lost = `${channel}_lost`;
    const stop = await db.listen(lost, { notify: (payload) => payloads.push(payload), state: (listening) => states.push(listening) });
    try {
      const listener = async () =>
        (await db.query<{ pid: number }>(sql`SELECT pid FROM pg_stat_activity WHERE query = ${`LISTEN "${lost}"`}`)).rows[0]?.pid;
      const pid = await listener();
      expect(pid).toBeDefined();
      await db.query(sql`SELECT pg_terminate_backend(${pid})`);
      await until(() => states.length === 2);
      expect(states).toEqual([false, true]);
      const again = await listener();
      expect(again).toBeDefined();
      expect(again).not.toBe(pid);
      await db.query(sql`SELECT pg_notify(${lost}, ${"after"})`);
      await until(() => payloads.includes("after"));
    } finally {
      await stop();
    }
  });

  it.runIf(target.name === "postgres")("reports each failed attempt to listen again, and listens once it can", async () => {
    // A database of its own: connections to it are refused for a while.
    const scratch = await openScratchDatabase(target.url, "core_listen");
    const name = new URL(scratch.url as string).pathname.slice(1);
    const states: boolean[] = [];
    const failures: unknown[] = [];
    const stop = await scratch.db.listen(`${channel}_retry`, {
      notify: () => {},
      state: (listening) => states.push(listening),
      failed: (error) => failures.push(error),
    });
    try {
      await db.query(sql`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS false`);
      await db.query(sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`);
      await until(() => failures.length >= 2);
      expect(states).toEqual([false]);
      expect(String(failures[0])).toMatch(/not currently accepting connections/);
      await db.query(sql`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS true`);
      await until(() => states.length === 2);
      expect(states).toEqual([false, true]);
    } finally {
      await db.query(sql`ALTER DATABASE ${ident(name)} ALLOW_CONNECTIONS true`);
      await stop();
      await scratch.dispose();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, ident, list, openDatabase, ResponseTooLargeError, sql } from "../src/index.js";
import { dropSchema, open, type Target, targets, uniqueSchema } from "./targets.js";

describe.each(targets)("database on $name", (target: Target) => {
  let db: Database;
  const schema = uniqueSchema("core_db");
  const items = ident(schema, "items");

  beforeAll(async () => {
    db = await open(target);
    await db.exec(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".items (id bigint PRIMARY KEY, name text NOT NULL);`);
  });
  afterAll(async () => {
    await dropSchema(db, schema);
    await db.close();
  });

  const names = async () => (await db.query<{ name: string }>(sql`SELECT name FROM ${items} ORDER BY id`)).rows.map((r) => r.name);
  const clear = () => db.query(sql`DELETE FROM ${items}`);

  it("reports its kind", () => {
    expect(db.kind).toBe(target.name);
  });

  it("runs parameterised queries; a hostile value stays a value", async () => {
    await clear();
    const hostile = `x'); DROP TABLE items; --`;
    const inserted = await db.query(sql`INSERT INTO ${items} (id, name) VALUES (${1}, ${hostile}), (${2}, ${"b"}), (${3}, ${"c"})`);
    expect(inserted.rowCount).toBe(3);
    const { rows, rowCount } = await db.query<{ id: number; name: string }>(
      sql`SELECT id, name FROM ${items} WHERE id IN ${list([1, 3])} ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 1, name: hostile },
      { id: 3, name: "c" },
    ]);
    expect(rowCount).toBe(2);
    const updated = await db.query(sql`UPDATE ${items} SET name = upper(name) WHERE id > ${1}`);
    expect(updated.rowCount).toBe(2);
    expect(await names()).toEqual([hostile, "B", "C"]);
  });

  it("returns timestamps, dates and numerics as the server's text", async () => {
    const { rows } = await db.transaction(async (tx) => {
      await tx.exec("SET LOCAL TIME ZONE 'UTC'");
      return tx.query(
        sql`SELECT ${"2024-03-01T12:34:56.123456+02:00"}::timestamptz AS tz, '2024-02-29 23:59:59.5'::timestamp AS ts,
                   '2024-02-29'::date AS d, ${"12345678901234567890.123456789"}::numeric AS n, 1.50::numeric AS short`,
      );
    });
    expect(rows[0]).toEqual({
      tz: "2024-03-01 10:34:56.123456+00",
      ts: "2024-02-29 23:59:59.5",
      d: "2024-02-29",
      n: "12345678901234567890.123456789",
      short: "1.50",
    });
  });

  it("returns int8 as a number when it is safe and as text beyond 2^53", async () => {
    const { rows } = await db.query(
      sql`SELECT 9007199254740991::int8 AS max_safe, (-9007199254740991)::int8 AS min_safe, 9007199254740992::int8 AS beyond,
                 (-9223372036854775808)::int8 AS lowest, count(*) AS counted, 7::int4 AS int4 FROM (VALUES (1), (2)) v(x)`,
    );
    expect(rows[0]).toEqual({
      max_safe: 9007199254740991,
      min_safe: -9007199254740991,
      beyond: "9007199254740992",
      lowest: "-9223372036854775808",
      counted: 2,
      int4: 7,
    });
  });

  it("commits a transaction and returns the callback's value", async () => {
    await clear();
    const result = await db.transaction(async (tx) => {
      await tx.query(sql`INSERT INTO ${items} (id, name) VALUES (${10}, ${"a"})`);
      await tx.exec(
        `INSERT INTO "${schema}".items (id, name) VALUES (11, 'b'); INSERT INTO "${schema}".items (id, name) VALUES (12, 'c');`,
      );
      return (await tx.query<{ n: number }>(sql`SELECT count(*) AS n FROM ${items}`)).rows[0]?.n;
    });
    expect(result).toBe(3);
    expect(await names()).toEqual(["a", "b", "c"]);
  });

  it("rolls back everything when the callback throws, and rethrows", async () => {
    await clear();
    await db.query(sql`INSERT INTO ${items} (id, name) VALUES (${1}, ${"kept"})`);
    const failure = new Error("stop here");
    const run = db.transaction(async (tx) => {
      await tx.query(sql`INSERT INTO ${items} (id, name) VALUES (${2}, ${"lost"})`);
      await tx.query(sql`UPDATE ${items} SET name = ${"changed"} WHERE id = ${1}`);
      await tx.exec(`CREATE TABLE "${schema}".created_in_tx (x int)`);
      throw failure;
    });
    await expect(run).rejects.toBe(failure);
    expect(await names()).toEqual(["kept"]);
    const table = await db.query(sql`SELECT to_regclass(${`"${schema}".created_in_tx`}) AS t`);
    expect(table.rows[0]).toEqual({ t: null });
  });

  it("rolls back when a statement fails inside the transaction", async () => {
    await clear();
    const run = db.transaction(async (tx) => {
      await tx.query(sql`INSERT INTO ${items} (id, name) VALUES (${1}, ${"a"})`);
      await tx.query(sql`INSERT INTO ${items} (id, name) VALUES (${1}, ${"duplicate"})`);
    });
    await expect(run).rejects.toThrow(/duplicate key/);
    expect(await names()).toEqual([]);
    // The connection is usable again afterwards.
    expect((await db.query(sql`SELECT ${1}::int AS one`)).rows).toEqual([{ one: 1 }]);
  });

  it("runs a statement with prepare as a named prepared statement on a server", async () => {
    const probe = sql`SELECT ${41} + 1 AS answer`;
    expect((await db.query(probe, { prepare: true })).rows).toEqual([{ answer: 42 }]);
    expect((await db.query(probe, { prepare: true })).rows).toEqual([{ answer: 42 }]);
    if (target.name === "postgres") {
      // Prepared statements live on a connection: ask on the one the transaction holds.
      const count = await db.transaction(async (tx) => {
        await tx.query(probe, { prepare: true });
        return (await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'p\\_%'`)).rows[0]
          ?.n;
      });
      expect(count).toBeGreaterThanOrEqual(1);
    }
  });

  it("runs a repeatable read, read only transaction in one snapshot", async () => {
    const mode = await db.transaction(
      async (tx) =>
        (
          await tx.query<{ isolation: string; readOnly: string }>(
            sql`SELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS "readOnly"`,
          )
        ).rows[0],
      { isolation: "repeatable read", readOnly: true },
    );
    expect(mode).toEqual({ isolation: "repeatable read", readOnly: "on" });
    const write = db.transaction((tx) => tx.query(sql`INSERT INTO ${items} (id, name) VALUES (${99}, ${"x"})`), { readOnly: true });
    await expect(write).rejects.toThrow(/read-only transaction/);
  });

  it("refuses an answer larger than maxResponseBytes, and stays usable", async () => {
    const big = sql`SELECT repeat('x', 200000) AS text`;
    await expect(db.query(big, { maxResponseBytes: 100_000 })).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(db.transaction((tx) => tx.query(big, { maxResponseBytes: 100_000 }))).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect((await db.query<{ text: string }>(big, { maxResponseBytes: 300_000 })).rows[0]?.text).toHaveLength(200_000);
    for (let i = 0; i < 8; i++) expect((await db.query(sql`SELECT ${i}::int AS i`)).rows).toEqual([{ i }]);
  });

  it("executes multi-statement scripts", async () => {
    await db.exec(`
      CREATE TABLE "${schema}".script (x int);
      INSERT INTO "${schema}".script VALUES (1), (2);
      INSERT INTO "${schema}".script SELECT x + 10 FROM "${schema}".script;
    `);
    const { rows } = await db.query(sql`SELECT x FROM ${ident(schema, "script")} ORDER BY x`);
    expect(rows).toEqual([{ x: 1 }, { x: 2 }, { x: 11 }, { x: 12 }]);
    await expect(db.exec(`SELECT 1; SELECT * FROM "${schema}".missing;`)).rejects.toThrow(/missing/);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("application_name on postgres", () => {
  it("names the pool's connections, unless the URL names them", async () => {
    const name = uniqueSchema("app");
    const named = await openDatabase({ url: process.env.TEST_DATABASE_URL, maxConnections: 1, applicationName: name });
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.searchParams.set("application_name", `${name}_url`);
    const fromUrl = await openDatabase({ url: url.toString(), maxConnections: 1, applicationName: name });
    try {
      const current = (d: Database) => d.query<{ name: string }>(sql`SELECT current_setting('application_name') AS name`);
      expect((await current(named)).rows).toEqual([{ name }]);
      expect((await current(fromUrl)).rows).toEqual([{ name: `${name}_url` }]);
    } finally {
      await named.close();
      await fromUrl.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("connection lifetime on postgres", () => {
  it("replaces a pooled connection once its lifetime has passed, with the prepared statements it held", async () => {
    const db = await openDatabase({ url: process.env.TEST_DATABASE_URL, maxConnections: 1, connectionLifetimeSeconds: 1 });
    try {
      const probe = sql`SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared`;
      const first = (await db.query<{ pid: number; prepared: number }>(probe, { prepare: true })).rows[0];
      expect(first?.prepared).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const later = (
        await db.query<{ pid: number; prepared: number }>(
          sql`SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared`,
        )
      ).rows[0];
      expect(later?.pid).not.toBe(first?.pid);
      expect(later?.prepared).toBe(0);
    } finally {
      await db.close();
    }
  });
});

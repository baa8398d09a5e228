import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSql } from "../src/engine/catalog/run-sql.js";
import { HasuraError } from "../src/engine/errors/index.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

describe.each(testBackends)("run_sql on %s", (backend) => {
  let t: TestDatabase;
  const run = (text: string, extra: { read_only?: boolean } = {}) => runSql(t.runner, { sql: text, ...extra });
  const fail = async (text: string, extra: { read_only?: boolean } = {}): Promise<HasuraError> => {
    const error = await run(text, extra).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HasuraError);
    return error as HasuraError;
  };
  const count = async (table: string): Promise<number> => {
    const { rows } = await t.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_catalog.pg_tables WHERE tablename = ${table}`);
    return rows[0]?.n ?? 0;
  };

  beforeAll(async () => {
    t = await openTestDatabase(backend);
  });
  afterAll(() => t?.dispose());

  it("answers CommandOk for statements without rows", async () => {
    expect(await run("CREATE TABLE author (id serial PRIMARY KEY, name text, born date, rating numeric, tags text[], meta jsonb)")).toEqual(
      {
        result_type: "CommandOk",
        result: null,
      },
    );
    expect(await run("INSERT INTO author (name) VALUES ('a')")).toEqual({ result_type: "CommandOk", result: null });
  });

  it("answers TuplesOk with a header row and every value as Postgres text, NULL as null", async () => {
    await run(`INSERT INTO author (name, born, rating, tags, meta) VALUES ('b', '2000-01-02', 4.50, '{x,"y z"}', '{"k": [1, 2]}')`);
    expect(
      await run(
        "SELECT id, name, born, rating, tags, meta, id > 1 AS later, 10000000000::int8 AS big, 1.5::float8 AS f FROM author ORDER BY id",
      ),
    ).toEqual({
      result_type: "TuplesOk",
      result: [
        ["id", "name", "born", "rating", "tags", "meta", "later", "big", "f"],
        ["1", "a", null, null, null, null, "f", "10000000000", "1.5"],
        ["2", "b", "2000-01-02", "4.50", '{x,"y z"}', '{"k": [1, 2]}', "t", "10000000000", "1.5"],
      ],
    });
  });

  it("answers TuplesOk with only the header for an empty result", async () => {
    expect(await run("SELECT name FROM author WHERE false")).toEqual({ result_type: "TuplesOk", result: [["name"]] });
  });

  it("returns only the last statement's result", async () => {
    expect(await run("SELECT 1 AS one; CREATE TABLE scratch (x int); INSERT INTO scratch VALUES (1), (2) RETURNING x")).toEqual({
      result_type: "TuplesOk",
      result: [["x"], ["1"], ["2"]],
    });
    expect(await run("SELECT 1 AS one; DROP TABLE scratch")).toEqual({ result_type: "CommandOk", result: null });
  });

  it("answers CommandOk for empty SQL", async () => {
    expect(await run("")).toEqual({ result_type: "CommandOk", result: null });
  });

  it("turns a Postgres error into Hasura's postgres-error with the details in internal", async () => {
    const error = await fail("SELECT * FROM nowhere");
    expect(error.status).toBe(400);
    expect(error.code).toBe("postgres-error");
    expect(error.message).toBe("query execution failed");
    expect(error.path).toBe("$");
    expect(error.details).toEqual({
      arguments: [],
      error: {
        description: null,
        exec_status: "FatalError",
        hint: null,
        message: 'relation "nowhere" does not exist',
        status_code: "42P01",
      },
      prepared: false,
      statement: "SELECT * FROM nowhere",
    });
    const dup = await fail("INSERT INTO author (id, name) VALUES (1, 'again')");
    expect(dup.details).toMatchObject({ error: { status_code: "23505", description: "Key (id)=(1) already exists." } });
  });

  it("rolls every statement back when a later one fails", async () => {
    await fail("CREATE TABLE half (x int); INSERT INTO half VALUES (1); SELECT 1/0");
    expect(await count("half")).toBe(0);
    await fail("INSERT INTO author (name) VALUES ('ghost'); INSERT INTO author (id) VALUES (1)");
    expect(await run("SELECT count(*) FROM author WHERE name = 'ghost'")).toEqual({ result_type: "TuplesOk", result: [["count"], ["0"]] });
  });

  it("runs read_only SQL in a read-only transaction", async () => {
    expect(await run("SELECT count(*) AS n FROM author", { read_only: true })).toEqual({ result_type: "TuplesOk", result: [["n"], ["2"]] });
    const error = await fail("CREATE TABLE sneaky (x int)", { read_only: true });
    expect(error.details).toMatchObject({ error: { status_code: "25006" } });
    expect(await count("sneaky")).toBe(0);
  });

  it("runs beforeCommit in the same transaction and rolls back when it throws", async () => {
    const seen: unknown[] = [];
    await runSql(
      t.runner,
      { sql: "CREATE TABLE checked (x int)" },
      {
        beforeCommit: async (tx) => {
          seen.push(
            (await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_catalog.pg_tables WHERE tablename = 'checked'`)).rows[0]
              ?.n,
          );
        },
      },
    );
    expect(seen).toEqual([1]);
    const refused = new HasuraError("dependency-error", "cannot drop due to the following dependent objects");
    const error = await runSql(
      t.runner,
      { sql: "DROP TABLE checked" },
      {
        beforeCommit: () => {
          throw refused;
        },
      },
    ).catch((e: unknown) => e);
    expect(error).toBe(refused);
    expect(await count("checked")).toBe(1);
  });
});

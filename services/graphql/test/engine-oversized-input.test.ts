/**
 * Oversized and over-deep requests: each one works or answers a clear validation-failed, never
 * `unexpected`. Lists are bound as one array parameter (no 65,535-parameter ceiling), fragments
 * of any size are assembled without spreading into a call (no stack overflow), more root fields
 * than PostgreSQL's 1,664 columns are packed into one array column, and values nested past what
 * the engine's walks recurse through are refused before anything walks them.
 */
import type { Database, QueryOptions } from "@platform/core";
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { ADMIN, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `CREATE TABLE t (id serial PRIMARY KEY, name text); INSERT INTO t (name) VALUES ('a'), ('b');`;
const metadata = (): Metadata => metadataWith([{ table: { schema: "public", name: "t" } }]);
const BOTH = { t: [{ id: 1 }, { id: 2 }] };

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const run = async (query: string, variables?: Record<string, unknown>) =>
    JSON.parse(await suite.engine.execute({ query, ...(variables ? { variables } : {}) }, ADMIN));
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i);

  it("takes an _in list of 70,000 values, literal or variable", async () => {
    expect(await run(`{ t(where: {id: {_in: [${ids(70_000).join(",")}]}}, order_by: {id: asc}) { id } }`)).toEqual({ data: BOTH });
    const query = `query ($ids: [Int!]) { t(where: {id: {_nin: $ids}}, order_by: {id: asc}) { id } }`;
    expect(await run(query, { ids: ids(70_000).map((i) => i + 3) })).toEqual({ data: BOTH });
  });

  it("takes an _or of 20,000 branches", async () => {
    const w = { _or: ids(20_000).map((i) => ({ id: { _eq: i } })) };
    expect(await run(`query ($w: t_bool_exp) { t(where: $w, order_by: {id: asc}) { id } }`, { w })).toEqual({ data: BOTH });
  }, 60_000);

  it("answers as many root fields as an operation may have, over several statements, and refuses more", async () => {
    const fields = ids(999).map((i) => `a${i}: t_by_pk(id: 1) { id }`);
    const body = await run(`{ ${fields.join(" ")} __typename }`);
    expect(Object.keys(body.data)).toHaveLength(1_000);
    expect(body.data.a0).toEqual({ id: 1 });
    expect(body.data.a998).toEqual({ id: 1 });
    expect(body.data.__typename).toBe("query_root");
    const more = await run(`{ ${fields.join(" ")} __typename b: t_by_pk(id: 1) { id } }`);
    expect(more.errors).toMatchObject([
      { message: "operation size limit of 1000 root fields exceeded", extensions: { code: "operation-size-limit-exceeded", path: "$" } },
    ]);
  }, 60_000);

  it("refuses values and documents nested too deeply to walk, with validation-failed", async () => {
    let deep: unknown = { id: { _eq: 1 } };
    for (let i = 0; i < 3_000; i++) deep = { _and: [deep] };
    expect(await run(`query ($w: t_bool_exp) { t(where: $w) { id } }`, { w: deep })).toEqual({
      errors: [
        { message: 'the value of variable "w" is nested deeper than 1500 levels', extensions: { path: "$", code: "validation-failed" } },
      ],
    });
    const literal = `{ t(where: ${"{_and: [".repeat(3_000)}{id: {_eq: 1}}${"]}".repeat(3_000)}) { id } }`;
    expect(await run(literal)).toEqual({
      errors: [{ message: "the query is nested too deeply to parse", extensions: { path: "$.query", code: "validation-failed" } }],
    });
    // What stays within the limit still works.
    let fine: unknown = { id: { _eq: 1 } };
    for (let i = 0; i < 300; i++) fine = { _and: [fine] };
    expect(await run(`query ($w: t_bool_exp) { t(where: $w) { id } }`, { w: fine })).toEqual({ data: { t: [{ id: 1 }] } });
  });

  it("takes regular expressions of any size on PostgreSQL; on PGlite refuses those past 4,096 characters, which would hang it", async () => {
    const query = `query ($p: String!) { t(where: {name: {_iregex: $p}}, order_by: {id: asc}) { id } }`;
    expect(await run(query, { p: `^(${"x".repeat(4_090)}|a)$` })).toEqual({ data: { t: [{ id: 1 }] } });
    const long = `^(${"x".repeat(6_000)}|a)$`;
    if (backend === "postgres") {
      expect(await run(query, { p: long })).toEqual({ data: { t: [{ id: 1 }] } });
      return;
    }
    const refused = {
      errors: [
        {
          message:
            "regular expression patterns longer than 4096 characters are not served on the embedded database (PGlite); use PostgreSQL",
          extensions: { path: "$", code: "validation-failed" },
        },
      ],
    };
    expect(await run(query, { p: long })).toEqual(refused);
    expect(await run(`{ t(where: {name: {_nsimilar: "${"y".repeat(5_000)}"}}) { id } }`)).toEqual({
      errors: [{ ...refused.errors[0], extensions: { path: "$.selectionSet.t.args.where", code: "validation-failed" } }],
    });
    // The database is still there.
    expect(await run("{ t(order_by: {id: asc}) { id } }")).toEqual({ data: BOTH });
  });
});

describe("a statement that answers no row", () => {
  // Fault injection over the real database: the answer of a statement whose error the database
  // lost (PGlite does so for a regex overflowing its compiler) is dropped on the way back.
  const suite = useTestEngine("pglite", {
    schema: SCHEMA,
    metadata,
    database: (db): Database => ({
      ...db,
      query: (async (statement: Parameters<Database["query"]>[0], options?: QueryOptions) => {
        const result = await db.query(statement, options);
        return JSON.stringify(result.rows).includes("lost") ? { rows: [], rowCount: 0 } : result;
      }) as Database["query"],
    }),
  });

  it("is an unexpected error, not null for every field", async () => {
    await suite.db.query({ text: "UPDATE t SET name = 'lost' WHERE id = 2", values: [] });
    const body = JSON.parse(await suite.engine.execute({ query: "{ t(order_by: {id: asc}) { name } }" }, ADMIN));
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions.code).toBe("unexpected");
    expect(body.errors[0].extensions.internal.error.message).toBe("the database answered no row to a statement that always answers one");
  });
});

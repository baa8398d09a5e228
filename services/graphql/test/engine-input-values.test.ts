/**
 * Input values before any SQL runs: GraphQL's list input coercion (a single value given where
 * a list is expected is a list of one) at every argument and input field, for literals and
 * variables; and strings for number, boolean and uuid columns checked at their path, on a fresh
 * and on a cached plan, while every form PostgreSQL reads still works.
 */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE item (
  id serial PRIMARY KEY, name text NOT NULL UNIQUE, qty integer, big bigint, price numeric, ratio float8, score real,
  flag boolean, ref uuid, day date, doc jsonb, tags text[], scores int[]
);
INSERT INTO item (name, qty, big, price, ratio, score, flag, ref, day, doc, tags, scores) VALUES
  ('a', 1, 10, 1.5, 0.5, 1.25, true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-01-02', '{"k": 1, "m": 2}', '{x,y}', '{1,2}'),
  ('b', 2, 20, 2.5, 1.5, 2.25, false, NULL, NULL, '{"k": 2}', '{y}', '{3}'),
  ('c', 2, 30, 3.5, 2.5, 3.25, NULL, NULL, NULL, NULL, NULL, NULL);
`;

const metadata = (): Metadata => metadataWith([{ table: { schema: "public", name: "item" } }]);

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const run = async (query: string, variables?: Record<string, unknown>) =>
    JSON.parse(
      await suite.engine.execute(
        { query, ...(variables ? { variables } : {}) },
        { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false },
      ),
    );
  const data = async (query: string, variables?: Record<string, unknown>) => {
    const body = await run(query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  };

  describe("a single value where a list is expected", () => {
    it("takes distinct_on as a single column, literal or variable", async () => {
      const literal = `{ item(distinct_on: qty, order_by: [{qty: asc}, {name: asc}]) { name } }`;
      expect(await data(literal)).toEqual({ item: [{ name: "a" }, { name: "b" }] });
      const variable = `query ($d: [item_select_column!]) { item(distinct_on: $d, order_by: [{qty: asc}, {name: asc}]) { name } }`;
      expect(await data(variable, { d: "qty" })).toEqual({ item: [{ name: "a" }, { name: "b" }] });
      // The same operation with a list: another plan, the same answer.
      expect(await data(variable, { d: ["qty"] })).toEqual({ item: [{ name: "a" }, { name: "b" }] });
    });

    it("takes count(columns:) as a single column, literal or variable", async () => {
      expect(await data(`{ item_aggregate { aggregate { count(columns: qty, distinct: true) } } }`)).toEqual({
        item_aggregate: { aggregate: { count: 2 } },
      });
      const variable = `query ($c: [item_select_column!]) { item_aggregate { aggregate { count(columns: $c, distinct: true) } } }`;
      expect(await data(variable, { c: "flag" })).toEqual({ item_aggregate: { aggregate: { count: 2 } } });
    });

    it("takes single values inside input objects: _and, _in, order_by, nested variables", async () => {
      expect(await data(`{ item(where: {_and: {name: {_in: "a"}}}) { name } }`)).toEqual({ item: [{ name: "a" }] });
      expect(await data(`query ($n: [String!]) { item(where: {_or: {name: {_in: $n}}}) { name } }`, { n: "b" })).toEqual({
        item: [{ name: "b" }],
      });
      expect(await data(`query ($w: item_bool_exp) { item(where: $w) { name } }`, { w: { _and: { qty: { _nin: 2 } } } })).toEqual({
        item: [{ name: "a" }],
      });
      expect(await data(`{ item(order_by: {name: desc}, limit: 1) { name } }`)).toEqual({ item: [{ name: "c" }] });
      expect(await data(`{ item(where: {doc: {_has_keys_all: "m"}}) { name } }`)).toEqual({ item: [{ name: "a" }] });
    });

    it("takes single values in mutations: objects, update_columns, updates, _delete_at_path", async () => {
      const inserted = await data(
        `mutation { insert_item(objects: {name: "d", qty: 4}, on_conflict: {constraint: item_name_key, update_columns: qty}) { affected_rows } }`,
      );
      expect(inserted).toEqual({ insert_item: { affected_rows: 1 } });
      const upserted = await data(
        `mutation ($o: [item_insert_input!]!, $u: [item_update_column!]!) {
          insert_item(objects: $o, on_conflict: {constraint: item_name_key, update_columns: $u}) { returning { name qty } } }`,
        { o: { name: "d", qty: 5 }, u: "qty" },
      );
      expect(upserted).toEqual({ insert_item: { returning: [{ name: "d", qty: 5 }] } });
      const many = await data(`mutation { update_item_many(updates: {where: {name: {_eq: "d"}}, _set: {qty: 6}}) { affected_rows } }`);
      expect(many).toEqual({ update_item_many: [{ affected_rows: 1 }] });
      await data(`mutation { update_item(where: {name: {_eq: "d"}}, _set: {doc: {a: {b: 1}, c: 2}}) { affected_rows } }`);
      const deleted = await data(`mutation { update_item(where: {name: {_eq: "d"}}, _delete_at_path: {doc: "a"}) { returning { doc } } }`);
      expect(deleted).toEqual({ update_item: { returning: [{ doc: { c: 2 } }] } });
      await data(`mutation { delete_item(where: {name: {_eq: "d"}}) { affected_rows } }`);
    });

    it("keeps a string for an array column as a PostgreSQL array literal, and a single element as an array of one", async () => {
      const body = await data(
        `mutation ($s: [Int!]) { insert_item(objects: [{name: "e", tags: "{p,q}", scores: $s}]) { returning { tags scores } } }`,
        { s: 7 },
      );
      expect(body).toEqual({ insert_item: { returning: [{ tags: ["p", "q"], scores: [7] }] } });
      expect(await data(`{ item(where: {scores: {_contains: 7}}) { name } }`)).toEqual({ item: [{ name: "e" }] });
      // A string that is not array text is one element, in comparisons, _in lists and writes.
      expect(await data(`{ item(where: {tags: {_contains: "p"}}) { name } }`)).toEqual({ item: [{ name: "e" }] });
      expect(await data(`{ item(where: {tags: {_in: ["y", "{x,y}"]}}, order_by: {id: asc}) { name } }`)).toEqual({
        item: [{ name: "a" }, { name: "b" }],
      });
      expect(await data(`mutation { update_item(where: {name: {_eq: "e"}}, _set: {tags: "solo"}) { returning { tags } } }`)).toEqual({
        update_item: { returning: [{ tags: ["solo"] }] },
      });
      await data(`mutation { delete_item(where: {name: {_eq: "e"}}) { affected_rows } }`);
    });
  });

  describe("strings for column values", () => {
    const byPk = `query ($id: Int!) { item_by_pk(id: $id) { name } }`;

    it("refuses a string that is not an integer for an Int column, on a fresh and on a cached plan", async () => {
      const refused = {
        message: `expected a 32-bit integer for type 'Int', but found the string "x"`,
        extensions: { path: "$.selectionSet.item_by_pk.args.id", code: "validation-failed" },
      };
      expect((await run(byPk, { id: "x" })).errors).toEqual([refused]);
      expect(await data(byPk, { id: 1 })).toEqual({ item_by_pk: { name: "a" } });
      expect((await run(byPk, { id: "x" })).errors).toEqual([refused]);
      expect((await run(`{ item_by_pk(id: "x") { name } }`)).errors).toEqual([refused]);
    });

    it("reads the integer strings PostgreSQL reads, and refuses those out of range", async () => {
      expect(await data(byPk, { id: " 2 " })).toEqual({ item_by_pk: { name: "b" } });
      expect(await data(byPk, { id: "+3" })).toEqual({ item_by_pk: { name: "c" } });
      expect((await run(byPk, { id: "2147483648" })).errors[0]).toEqual({
        message: `the value "2147483648" is out of range for type 'Int' (a 32-bit integer)`,
        extensions: { path: "$.selectionSet.item_by_pk.args.id", code: "validation-failed" },
      });
      const big = `query ($b: bigint) { item(where: {big: {_eq: $b}}) { name } }`;
      expect(await data(big, { b: "20" })).toEqual({ item: [{ name: "b" }] });
      expect((await run(big, { b: "9223372036854775808" })).errors[0].extensions.code).toBe("validation-failed");
      expect((await run(big, { b: "2O" })).errors[0].message).toBe(
        `expected a 64-bit integer for type 'bigint', but found the string "2O"`,
      );
    });

    it("checks numbers, booleans and uuids given as strings", async () => {
      const where = async (exp: string, variables: Record<string, unknown>, type: string) =>
        run(`query ($v: ${type}) { item(where: {${exp}: {_eq: $v}}, order_by: {id: asc}) { name } }`, variables);
      expect((await where("price", { v: "2.50" }, "numeric")).data).toEqual({ item: [{ name: "b" }] });
      expect((await where("price", { v: "1e400x" }, "numeric")).errors[0]).toEqual({
        message: `expected a number for type 'numeric', but found the string "1e400x"`,
        extensions: { path: "$.selectionSet.item.args.where.price._eq", code: "validation-failed" },
      });
      expect((await where("ratio", { v: "1.5" }, "float8")).data).toEqual({ item: [{ name: "b" }] });
      expect((await where("ratio", { v: "NaN" }, "float8")).data).toEqual({ item: [] });
      expect((await where("score", { v: "2.25" }, "Float")).data).toEqual({ item: [{ name: "b" }] });
      expect((await where("score", { v: "two" }, "Float")).errors[0].extensions.code).toBe("validation-failed");
      expect((await where("flag", { v: true }, "Boolean")).data).toEqual({ item: [{ name: "a" }] });
      expect((await run(`{ item(where: {flag: {_eq: "no"}}) { name } }`)).data).toEqual({ item: [{ name: "b" }] });
      expect((await run(`{ item(where: {flag: {_eq: "maybe"}}) { name } }`)).errors[0]).toEqual({
        message: `expected a boolean for type 'Boolean', but found the string "maybe"`,
        extensions: { path: "$.selectionSet.item.args.where.flag._eq", code: "validation-failed" },
      });
      const uuid = "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11";
      expect((await where("ref", { v: uuid }, "uuid")).data).toEqual({ item: [{ name: "a" }] });
      expect((await where("ref", { v: `{${uuid.replaceAll("-", "")}}` }, "uuid")).data).toEqual({ item: [{ name: "a" }] });
      expect((await where("ref", { v: "not-a-uuid" }, "uuid")).errors[0]).toEqual({
        message: `expected a uuid for type 'uuid', but found the string "not-a-uuid"`,
        extensions: { path: "$.selectionSet.item.args.where.ref._eq", code: "validation-failed" },
      });
    });

    it("leaves dates to PostgreSQL, whose refusal is a data-exception naming the value", async () => {
      const query = `query ($d: date) { item(where: {day: {_eq: $d}}) { name } }`;
      expect(await data(query, { d: "2024-01-02" })).toEqual({ item: [{ name: "a" }] });
      expect(await data(query, { d: "Jan 2, 2024" })).toEqual({ item: [{ name: "a" }] });
      const refused = (await run(query, { d: "someday" })).errors[0];
      expect(refused.extensions.code).toBe("data-exception");
      expect(refused.message).toContain("someday");
    });
  });
});

/**
 * Input values as Hasura parses them (literals and variables, its messages, errors at the place
 * a variable is used), long numbers kept exact, json paths, jsonb `_cast`, stringified
 * aggregates and the request-level errors (fragment cycles, directives, persisted queries).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Engine, GraphQLRequest } from "../src/engine/execute.js";
import { parseJsonBody } from "../src/engine/json/parse.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { ADMIN, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE colors (value text PRIMARY KEY);
INSERT INTO colors VALUES ('red'), ('green'), ('blue');
CREATE TABLE item (
  id serial PRIMARY KEY, name text NOT NULL, qty integer, big bigint, price numeric, ratio float8,
  color text REFERENCES colors(value), doc jsonb, raw json
);
INSERT INTO item (name, qty, big, price, ratio, color, doc, raw) VALUES
  ('a', 1, 10, 1.10, 0.5, 'red', '{"k": {"x": 1}, "tags": ["x", "best"], "odd key": 3}', '{"a": [10, 20]}'),
  ('b', 2, 20, 2.20, 1.5, 'blue', '["plain"]', '{"a": [30]}'),
  ('c', 3, 30, 3.30, 2.5, NULL, NULL, NULL);
`;

/** `colors` is an enum table: useTestEngine loads its values, as the runtime does. */
function metadata(): Metadata {
  return metadataWith([{ table: { schema: "public", name: "colors" }, is_enum: true }, { table: { schema: "public", name: "item" } }]);
}

const COLORS = "['blue', 'green', 'red']";

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  let stringified: Engine;
  beforeAll(() => {
    stringified = suite.engineWith({ stringifyNumeric: true });
  });
  const raw = (request: GraphQLRequest, on: Engine = suite.engine) => on.execute(request, ADMIN);
  const run = async (query: string, variables?: Record<string, unknown>, on: Engine = suite.engine) =>
    JSON.parse(await raw({ query, variables }, on));
  const error = async (query: string, variables?: Record<string, unknown>) => (await run(query, variables)).errors?.[0];

  describe("limit and offset", () => {
    it("refuses a string limit and a negative one, literal or variable, at the argument", async () => {
      expect(await error(`{ item(limit: "1") { id } }`)).toEqual({
        message: "expected a non-negative 32-bit integer for type 'Int', but found a string",
        extensions: { path: "$.selectionSet.item.args.limit", code: "validation-failed" },
      });
      expect(await error(`query ($l: Int) { item(limit: $l) { id } }`, { l: -1 })).toEqual({
        message: "expected a non-negative 32-bit integer for type 'Int', but found a number",
        extensions: { path: "$.selectionSet.item.args.limit", code: "validation-failed" },
      });
    });

    it("takes an offset written as a string", async () => {
      const query = `query ($o: Int) { item(order_by: {id: asc}, offset: $o, limit: 1) { id } }`;
      expect((await run(`{ item(order_by: {id: asc}, offset: "1", limit: 1) { id } }`)).data).toEqual({ item: [{ id: 2 }] });
      expect((await run(query, { o: "2" })).data).toEqual({ item: [{ id: 3 }] });
      expect((await error(query, { o: "x" })).message).toBe(
        "expected a 32-bit integer, or a 64-bit integer represented as a string for type 'Int', but found a string",
      );
    });
  });

  describe("column values", () => {
    it("refuses an integer out of the column's bounds with Hasura's parse error", async () => {
      expect(await error(`mutation { insert_item(objects: [{name: "x", qty: 2147483648}]) { affected_rows } }`)).toEqual({
        message: "The value 2.147483648e9 lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?",
        extensions: { path: "$.selectionSet.insert_item.args.objects[0].qty", code: "parse-failed" },
      });
      expect(await error(`query ($q: Int) { item(where: {qty: {_eq: $q}}) { id } }`, { q: 1.5 })).toEqual({
        message: "The value 1.5 lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?",
        extensions: { path: "$.selectionSet.item.args.where.qty._eq", code: "parse-failed" },
      });
    });

    it("passes strings to PostgreSQL for any column type, as Hasura does", async () => {
      expect((await run(`{ item(where: {qty: {_eq: "2"}}) { name } }`)).data).toEqual({ item: [{ name: "b" }] });
      expect((await run(`query ($q: Int) { item(where: {qty: {_eq: $q}}) { name } }`, { q: "3" })).data).toEqual({
        item: [{ name: "c" }],
      });
    });

    it("refuses a number for a text column", async () => {
      expect(await error(`{ item(where: {name: {_eq: 5}}) { id } }`)).toMatchObject({
        extensions: { path: "$.selectionSet.item.args.where.name._eq", code: "parse-failed" },
      });
    });

    it("words unknown and missing input fields of literals at their place", async () => {
      expect(await error(`{ item(where: {nope: {}}) { id } }`)).toEqual({
        message: "field 'nope' not found in type: 'item_bool_exp'",
        extensions: { path: "$.selectionSet.item.args.where.nope", code: "validation-failed" },
      });
      expect(await error(`mutation { insert_item(objects: [{name: "x"}], on_conflict: {update_columns: []}) { affected_rows } }`)).toEqual({
        message: "missing required field 'constraint'",
        extensions: { path: "$.selectionSet.insert_item.args.on_conflict.constraint", code: "validation-failed" },
      });
    });

    it("words unknown and missing input fields of variables at their place", async () => {
      expect(await error(`query ($w: item_bool_exp) { item(where: $w) { id } }`, { w: { nope: {} } })).toEqual({
        message: "field 'nope' not found in type: 'item_bool_exp'",
        extensions: { path: "$.selectionSet.item.args.where.nope", code: "validation-failed" },
      });
      expect(await error(`query ($id: Int!) { item_by_pk(id: $id) { id } }`)).toEqual({
        message: 'expecting a value for non-nullable variable: "id"',
        extensions: { path: "$", code: "validation-failed" },
      });
    });
  });

  describe("enums", () => {
    it("refuses unknown values and strings, literal or variable, where they are used", async () => {
      const where = "$.selectionSet.item.args.where.color._eq";
      expect(await error(`{ item(where: {color: {_eq: purple}}) { id } }`)).toEqual({
        message: `expected one of the values ${COLORS} for type 'colors_enum', but found 'purple'`,
        extensions: { path: where, code: "validation-failed" },
      });
      expect(await error(`{ item(where: {color: {_eq: "red"}}) { id } }`)).toEqual({
        message: "expected an enum value for type 'colors_enum', but found a string",
        extensions: { path: where, code: "validation-failed" },
      });
      const query = `query ($c: colors_enum) { item(where: {color: {_eq: $c}}) { name } }`;
      expect((await run(query, { c: "blue" })).data).toEqual({ item: [{ name: "b" }] });
      // The same operation again (its plan cached) with a bad value.
      expect(await error(query, { c: "purple" })).toEqual({
        message: `expected one of the values ${COLORS} for type 'colors_enum', but found 'purple'`,
        extensions: { path: where, code: "validation-failed" },
      });
      expect((await error(`mutation { insert_item(objects: [{name: "z", color: pink}]) { affected_rows } }`)).extensions).toEqual({
        path: "$.selectionSet.insert_item.args.objects[0].color",
        code: "validation-failed",
      });
    });

    it("checks variables used inside fragments at their inlined place", async () => {
      const query = `query ($c: colors_enum) { ...q } fragment q on query_root { item(where: {color: {_eq: $c}}) { id } }`;
      expect((await error(query, { c: "nope" })).extensions.path).toBe("$.selectionSet.item.args.where.color._eq");
      expect((await run(query, { c: "red" })).data).toEqual({ item: [{ id: 1 }] });
    });
  });

  describe("long numbers", () => {
    it("keeps the digits of bigint literals and variables", async () => {
      const inserted = await run(
        `mutation { insert_item_one(object: {name: "big", big: 9223372036854775807}) { id big } }`,
        undefined,
        stringified,
      );
      expect(inserted.data.insert_item_one.big).toBe("9223372036854775807");
      const body = parseJsonBody(
        '{"query": "query ($b: bigint) { item(where: {big: {_eq: $b}}) { name big } }", "variables": {"b": 9223372036854775807}}',
      ) as GraphQLRequest;
      expect(await raw(body)).toBe('{"data":{"item":[{"name":"big","big":9223372036854775807}]}}');
      expect(JSON.parse(await raw(body, stringified)).data.item[0].big).toBe("9223372036854775807");
    });

    it("keeps long numbers inside jsonb values", async () => {
      const body = parseJsonBody(
        '{"query": "mutation ($d: jsonb) { insert_item_one(object: {name: \\"j\\", doc: $d}) { doc } }", "variables": {"d": {"n": 12345678901234567890, "f": 0.1}}}',
      ) as GraphQLRequest;
      expect(await raw(body)).toBe('{"data":{"insert_item_one":{"doc":{"f": 0.1, "n": 12345678901234567890}}}}');
    });
  });

  describe("json paths", () => {
    it("selects into json and jsonb values", async () => {
      const body = await run(`{ item(where: {id: {_eq: 1}}) {
        x: doc(path: "$.k.x") odd: doc(path: "['odd key']") second: doc(path: "tags[1]") whole: doc(path: "$")
        a: raw(path: ".a[1]") missing: raw(path: "nope") } }`);
      expect(body.data.item[0]).toEqual({
        x: 1,
        odd: 3,
        second: "best",
        whole: { k: { x: 1 }, tags: ["x", "best"], "odd key": 3 },
        a: 20,
        missing: null,
      });
      const viaVariable = await run(`query ($p: String) { item(where: {id: {_eq: 2}}) { raw(path: $p) } }`, { p: "a[0]" });
      expect(viaVariable.data).toEqual({ item: [{ raw: 30 }] });
    });

    it("refuses a path Hasura cannot read", async () => {
      expect(await error(`{ item { doc(path: "a b") } }`)).toEqual({
        message:
          'parse json path error: a b. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character',
        extensions: { path: "$.selectionSet.item.selectionSet.doc.args.path", code: "validation-failed" },
      });
    });
  });

  it("compares jsonb as text with _cast", async () => {
    const body = await run(`{ item(where: {doc: {_cast: {String: {_like: "%best%"}}}}) { name } }`);
    expect(body.data).toEqual({ item: [{ name: "a" }] });
  });

  it("prints aggregates of big-number columns as PostgreSQL's text when numbers are stringified", async () => {
    const query = `{ item_aggregate(where: {id: {_lte: 3}}) { aggregate { avg { price ratio qty } sum { price qty } max { ratio } } } }`;
    const body = await run(query, undefined, stringified);
    expect(body.data.item_aggregate.aggregate).toEqual({
      avg: { price: "2.2000000000000000", ratio: "1.5", qty: 2 },
      sum: { price: "6.60", qty: 6 },
      max: { ratio: "2.5" },
    });
    expect((await run(query)).data.item_aggregate.aggregate.avg).toEqual({ price: 2.2, ratio: 1.5, qty: 2 });
  });

  describe("request-level errors", () => {
    it("names fragment cycles as Hasura does", async () => {
      const query = `query { item { ...a } }
        fragment a on item { id ...b }
        fragment b on item { name ...a }`;
      expect(await error(query)).toEqual({
        message: "the fragment definition(s) a and b form a cycle",
        extensions: { path: "$.selectionSet.item.selectionSet.a.selectionSet.b.selectionSet", code: "validation-failed" },
      });
    });

    it("points directive errors at the selection set", async () => {
      expect(await error(`{ item { id @nope name } }`)).toEqual({
        message: 'directive "nope" is not defined in the schema',
        extensions: { path: "$.selectionSet.item.selectionSet", code: "validation-failed" },
      });
      expect(await error(`{ item { id @skip(if: false) @skip(if: false) } }`)).toEqual({
        message: "the following directives are used more than once: skip",
        extensions: { path: "$.selectionSet.item.selectionSet", code: "validation-failed" },
      });
      expect(await error(`query @skip(if: true) { item { id } }`)).toEqual({
        message: 'directive "skip" is not allowed on a query',
        extensions: { path: "$", code: "validation-failed" },
      });
    });

    it("refuses automatic persisted queries", async () => {
      const body = JSON.parse(await raw({ query: "{ item { id } }", extensions: { persistedQuery: { version: 1, sha256Hash: "abc" } } }));
      expect(body).toEqual({
        errors: [{ message: "Automatic Persisted Queries is not enabled", extensions: { path: "$", code: "not-supported" } }],
      });
      expect(JSON.parse(await raw({ query: "{ item(limit: 1) { id } }", extensions: null })).data).toEqual({ item: [{ id: 1 }] });
    });
  });
});

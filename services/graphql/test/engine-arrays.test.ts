/** PostgreSQL array columns as GraphQL lists (Hasura v2.29+): schema, output, filters, writes, errors. */
import { type Compiled, compile, type Database, Sql } from "@platform/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { introspect } from "../src/engine/catalog/introspect.js";
import { Engine } from "../src/engine/execute.js";
import { emptyMetadata, type Metadata } from "../src/engine/metadata/types.js";
import { buildModel } from "../src/engine/model/build.js";
import type { Session } from "../src/engine/request/session.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const SCHEMA = `
CREATE TABLE post (
  id serial PRIMARY KEY,
  title text NOT NULL,
  tags text[],
  scores int4[] NOT NULL DEFAULT '{}',
  ids uuid[],
  docs jsonb[],
  grid int[][],
  big int8[],
  notes json[]
);
`;

const ROWS = `
TRUNCATE post RESTART IDENTITY;
INSERT INTO post (title, tags, scores, ids, docs, grid, big) VALUES
  ('p1', '{a,b}', '{1,2,3}', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['{"k": 1}'::jsonb], '{{1,2},{3,4}}', '{9223372036854775807}'),
  ('p2', '{b,c}', '{5}', NULL, NULL, NULL, NULL),
  ('p3', NULL, '{}', NULL, NULL, NULL, NULL),
  ('p4', '{}', '{2,1}', NULL, NULL, NULL, NULL);
`;

function metadata(): Metadata {
  const m = emptyMetadata();
  (m.sources[0] as Metadata["sources"][number]).tables = [
    {
      table: { schema: "public", name: "post" },
      select_permissions: [
        { role: "reader", permission: { columns: ["id", "title", "tags"], filter: { tags: { _contains: "X-Hasura-Tags" } } } },
        { role: "fixed", permission: { columns: ["id", "title"], filter: { tags: { _contained_in: ["a", "b", "c"] } } } },
      ],
      insert_permissions: [
        { role: "reader", permission: { columns: ["title"], check: {}, set: { tags: "X-Hasura-Tags", scores: [7, 8] } } },
      ],
    },
  ];
  return m;
}

const admin: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const reader: Session = { role: "reader", variables: { "x-hasura-tags": "{a}" }, isAdmin: false, useBackendOnly: false };
const fixed: Session = { role: "fixed", variables: {}, isAdmin: false, useBackendOnly: false };

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };

/** `[String!]!` style text of an introspected type. */
function typeText(t: TypeRef | null): string {
  if (!t) return "?";
  if (t.kind === "NON_NULL") return `${typeText(t.ofType)}!`;
  if (t.kind === "LIST") return `[${typeText(t.ofType)}]`;
  return t.name ?? "?";
}

const TYPE_REF = "type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }";

describe.each(testBackends)("%s", (backend) => {
  let handle: TestDatabase;
  let db: Database;
  let engine: Engine;
  let statements: Compiled[] = [];
  const run = async (query: string, variables?: Record<string, unknown>, session: Session = admin) =>
    JSON.parse(await engine.execute({ query, variables }, session));
  const titles = (body: { data?: { post?: Array<{ title: string }> }; errors?: unknown }) => {
    expect(body.errors).toBeUndefined();
    return body.data?.post?.map((p) => p.title);
  };
  const fieldTypes = async (type: string, input = false) => {
    const body = await run(`{ __type(name: "${type}") { ${input ? "inputFields" : "fields"} { name ${TYPE_REF} } } }`);
    const fields = (body.data.__type[input ? "inputFields" : "fields"] ?? []) as Array<{ name: string; type: TypeRef }>;
    return Object.fromEntries(fields.map((f) => [f.name, typeText(f.type)]));
  };

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    db = handle.db;
    await db.exec(SCHEMA);
    const catalog = await introspect(db);
    const recording: Database = {
      ...db,
      query: (statement, options) => {
        statements.push(statement instanceof Sql ? compile(statement, "postgres") : statement);
        return db.query(statement, options);
      },
    };
    engine = new Engine(recording, buildModel(metadata(), catalog), { booleanNullCollapse: false });
  });
  beforeEach(async () => {
    await db.exec(ROWS);
  });
  afterAll(async () => handle.dispose());

  describe("schema", () => {
    it("types array columns as lists of the element scalar, the column's nullability on the list", async () => {
      // Results may hold NULL elements (PostgreSQL arrays always can): nullable items there;
      // values written are lists of non-null elements, as Hasura types them.
      const post = await fieldTypes("post");
      expect(post).toMatchObject({
        tags: "[String]",
        scores: "[Int]!",
        ids: "[uuid]",
        docs: "[jsonb]",
        grid: "[Int]",
        big: "[bigint]",
        notes: "[json]",
        title: "String!",
      });
      const insert = await fieldTypes("post_insert_input", true);
      expect(insert).toMatchObject({ tags: "[String!]", scores: "[Int!]", ids: "[uuid!]" });
      const set = await fieldTypes("post_set_input", true);
      expect(set).toMatchObject({ tags: "[String!]", scores: "[Int!]" });
      const boolExp = await fieldTypes("post_bool_exp", true);
      expect(boolExp).toMatchObject({
        tags: "String_array_comparison_exp",
        scores: "Int_array_comparison_exp",
        ids: "uuid_array_comparison_exp",
        docs: "jsonb_array_comparison_exp",
        title: "String_comparison_exp",
      });
    });

    it("offers Hasura's array comparison operators", async () => {
      const exp = await fieldTypes("String_array_comparison_exp", true);
      expect(exp).toEqual({
        _contained_in: "[String!]",
        _contains: "[String!]",
        _eq: "[String!]",
        _gt: "[String!]",
        _gte: "[String!]",
        _in: "[[String!]!]",
        _is_null: "Boolean",
        _lt: "[String!]",
        _lte: "[String!]",
        _neq: "[String!]",
        _nin: "[[String!]!]",
      });
      const body = await run(`{ __type(name: "Int_array_comparison_exp") { name description inputFields { name description } } }`);
      expect(body.data.__type.description).toBe(
        `Boolean expression to compare columns of type "Int". All fields are combined with logical 'AND'.`,
      );
      const descriptions = Object.fromEntries(
        (body.data.__type.inputFields as Array<{ name: string; description: string | null }>).map((f) => [f.name, f.description]),
      );
      expect(descriptions._contains).toBe("does the array contain the given value");
      expect(descriptions._contained_in).toBe("is the array contained in the given array value");
      // The scalar comparison type keeps its own operators.
      const text = await fieldTypes("String_comparison_exp", true);
      expect(text._like).toBe("String");
      expect(text._contains).toBeUndefined();
    });

    it("keeps arrays out of numeric aggregates, in max/min and order_by", async () => {
      const aggregate = await fieldTypes("post_aggregate_fields");
      expect(Object.keys(aggregate).sort()).toEqual([
        "avg",
        "count",
        "max",
        "min",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "sum",
        "var_pop",
        "var_samp",
        "variance",
      ]);
      expect(Object.keys(await fieldTypes("post_sum_fields"))).toEqual(["id"]);
      expect(await fieldTypes("post_max_fields")).toMatchObject({ tags: "[String]", scores: "[Int]", ids: "[uuid]", docs: "[jsonb]" });
      expect(await fieldTypes("post_order_by", true)).toMatchObject({ tags: "order_by", scores: "order_by" });
    });
  });

  describe("select", () => {
    it("returns arrays as JSON arrays, nulls as null", async () => {
      const text = await engine.execute({ query: `{ post(order_by: {id: asc}) { title tags scores ids docs grid big } }` }, admin);
      // PostgreSQL's JSON keeps every digit of a bigint element.
      expect(text).toContain(`"big":[9223372036854775807]`);
      const body = JSON.parse(text);
      expect(body.data.post).toEqual([
        {
          title: "p1",
          tags: ["a", "b"],
          scores: [1, 2, 3],
          ids: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"],
          docs: [{ k: 1 }],
          grid: [
            [1, 2],
            [3, 4],
          ],
          big: [2 ** 63],
        },
        { title: "p2", tags: ["b", "c"], scores: [5], ids: null, docs: null, grid: null, big: null },
        { title: "p3", tags: null, scores: [], ids: null, docs: null, grid: null, big: null },
        { title: "p4", tags: [], scores: [2, 1], ids: null, docs: null, grid: null, big: null },
      ]);
    });

    it("orders by array columns and aggregates max/min over them", async () => {
      expect(titles(await run(`{ post(order_by: [{scores: desc}, {id: asc}]) { title } }`))).toEqual(["p2", "p4", "p1", "p3"]);
      const agg = await run(`{ post_aggregate { aggregate { max { tags scores ids } min { scores } } } }`);
      expect(agg.data.post_aggregate.aggregate).toEqual({
        max: { tags: ["b", "c"], scores: [5], ids: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"] },
        min: { scores: [] },
      });
      // json[] has no ordering in PostgreSQL: no max/min for it (Hasura offers them and fails).
      const schema = await run(`{ __type(name: "post_max_fields") { fields { name } } }`);
      expect(schema.data.__type.fields.map((f: { name: string }) => f.name)).not.toContain("notes");
    });
  });

  describe("where", () => {
    const q = (where: string, variables?: Record<string, unknown>, decl = "") =>
      run(`query${decl} { post(where: ${where}, order_by: {id: asc}) { title } }`, variables);

    it("compares with every array operator given literals", async () => {
      expect(titles(await q(`{tags: {_contains: ["b"]}}`))).toEqual(["p1", "p2"]);
      expect(titles(await q(`{tags: {_contains: []}}`))).toEqual(["p1", "p2", "p4"]);
      expect(titles(await q(`{tags: {_contained_in: ["a", "b", "x"]}}`))).toEqual(["p1", "p4"]);
      expect(titles(await q(`{tags: {_eq: ["b", "c"]}}`))).toEqual(["p2"]);
      expect(titles(await q(`{tags: {_neq: ["b", "c"]}}`))).toEqual(["p1", "p4"]);
      expect(titles(await q(`{scores: {_gt: [2]}}`))).toEqual(["p2", "p4"]);
      expect(titles(await q(`{scores: {_gte: [2, 1]}}`))).toEqual(["p2", "p4"]);
      expect(titles(await q(`{scores: {_lt: [2]}}`))).toEqual(["p1", "p3"]);
      expect(titles(await q(`{scores: {_lte: [1, 2, 3]}}`))).toEqual(["p1", "p3"]);
      expect(titles(await q(`{scores: {_in: [[5], [], [9]]}}`))).toEqual(["p2", "p3"]);
      expect(titles(await q(`{scores: {_nin: [[5], []]}}`))).toEqual(["p1", "p4"]);
      expect(titles(await q(`{scores: {_in: []}}`))).toEqual([]);
      expect(titles(await q(`{tags: {_is_null: true}}`))).toEqual(["p3"]);
      expect(titles(await q(`{tags: {_is_null: false}, scores: {_contains: [1]}}`))).toEqual(["p1", "p4"]);
      expect(titles(await q(`{ids: {_contains: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]}}`))).toEqual(["p1"]);
      expect(titles(await q(`{docs: {_contains: [{k: 1}]}}`))).toEqual(["p1"]);
      // Elements that need quoting in PostgreSQL's array text stay one element each ("c,d" is not "c").
      expect(titles(await q(`{tags: {_contained_in: ["a", "b", "c,d", "\\"q\\"", "NULL", "x\\\\y", "{}"]}}`))).toEqual(["p1", "p4"]);
    });

    it("compares with variables, one array parameter whatever the length", async () => {
      const contains = (v: unknown) => q(`{tags: {_contains: $v}}`, { v }, "($v: [String!])");
      statements = [];
      expect(titles(await contains(["b"]))).toEqual(["p1", "p2"]);
      expect(titles(await contains(["b", "c"]))).toEqual(["p2"]);
      expect(titles(await contains([]))).toEqual(["p1", "p2", "p4"]);
      expect(statements).toHaveLength(3);
      expect(new Set(statements.map((st) => st.text)).size).toBe(1);
      expect(statements.map((st) => st.values)).toEqual([['{"b"}'], ['{"b","c"}'], ["{}"]]);
      expect(statements[0]?.text).toContain(`@> $1::"_text"`);
      expect(titles(await contains("{a}"))).toEqual(["p1"]);
      const ops = `{scores: {_gte: $lo, _lt: $hi, _nin: $not}, tags: {_contained_in: $all}}`;
      const decl = "($lo: [Int!], $hi: [Int!], $not: [[Int!]!], $all: [String!])";
      expect(titles(await q(ops, { lo: [1], hi: [9], not: [[5]], all: ["a", "b"] }, decl))).toEqual(["p1", "p4"]);
      expect(titles(await q(ops, { lo: [1], hi: [9], not: [[5], [2, 1]], all: ["a", "b", "c"] }, decl))).toEqual(["p1"]);
      const inList = await q(`{scores: {_in: $v}}`, { v: [[5], [2, 1]] }, "($v: [[Int!]!])");
      expect(titles(inList)).toEqual(["p2", "p4"]);
      const eq = await q(`{tags: {_eq: $v}}`, { v: ["a", "b"] }, "($v: [String!])");
      expect(titles(eq)).toEqual(["p1"]);
    });

    it("applies permission filters on array columns (session variables as array literals)", async () => {
      expect(titles(await run(`{ post(order_by: {id: asc}) { title } }`, undefined, reader))).toEqual(["p1"]);
      const other = { ...reader, variables: { "x-hasura-tags": "{b}" } };
      expect(titles(await run(`{ post(order_by: {id: asc}) { title } }`, undefined, other))).toEqual(["p1", "p2"]);
      expect(titles(await run(`{ post(order_by: {id: asc}) { title } }`, undefined, fixed))).toEqual(["p1", "p2", "p4"]);
    });

    it("refuses a null operand and a wrong element type", async () => {
      const nullOperand = await q(`{tags: {_contains: null}}`);
      expect(nullOperand.errors[0].extensions.code).toBe("validation-failed");
      const badElement = await q(`{scores: {_contains: [1, true]}}`);
      expect(badElement.errors[0].extensions).toEqual({ path: "$.selectionSet.post.args.where.scores._contains[1]", code: "parse-failed" });
      const badVariable = await q(`{scores: {_contains: $v}}`, { v: [1, "x", 2.5] }, "($v: [Int!])");
      expect(badVariable.errors[0]).toEqual({
        message: `expected a 32-bit integer for type 'Int', but found the string "x"`,
        extensions: { path: "$.selectionSet.post.args.where.scores._contains[1]", code: "validation-failed" },
      });
      const nullItem = await q(`{tags: {_contains: $v}}`, { v: ["a", null] }, "($v: [String!])");
      expect(nullItem.errors[0].extensions).toEqual({
        path: "$.selectionSet.post.args.where.tags._contains[1]",
        code: "validation-failed",
      });
    });
  });

  describe("mutations", () => {
    it("inserts lists, variables, empty lists, nulls and PostgreSQL array literals", async () => {
      const body = await run(
        `mutation($tags: [String!], $docs: [jsonb!]) {
          insert_post(objects: [
            {title: "n1", tags: ["x", "y z", "q\\"uote"], scores: [1, 2], ids: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]},
            {title: "n2", tags: $tags, docs: $docs, big: [9223372036854775807]},
            {title: "n3", tags: null, scores: []},
            {title: "n4", tags: "{m,n}", grid: "{{1,2},{3,4}}"}
          ]) { affected_rows returning { title tags scores ids docs grid big } }
        }`,
        { tags: ["v1", "v2"], docs: [{ a: [1, "two"] }, "plain", '{"parsed": true}'] },
      );
      expect(body.errors).toBeUndefined();
      expect(body.data.insert_post.affected_rows).toBe(4);
      expect(body.data.insert_post.returning).toEqual([
        {
          title: "n1",
          tags: ["x", "y z", 'q"uote'],
          scores: [1, 2],
          ids: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"],
          docs: null,
          grid: null,
          big: null,
        },
        {
          title: "n2",
          tags: ["v1", "v2"],
          scores: [],
          ids: null,
          docs: [{ a: [1, "two"] }, "plain", { parsed: true }],
          grid: null,
          big: [2 ** 63],
        },
        { title: "n3", tags: null, scores: [], ids: null, docs: null, grid: null, big: null },
        {
          title: "n4",
          tags: ["m", "n"],
          scores: [],
          ids: null,
          docs: null,
          grid: [
            [1, 2],
            [3, 4],
          ],
          big: null,
        },
      ]);
      const rows = await db.query<{ tags: string[] | null }>({ text: "SELECT tags FROM post WHERE title = 'n1'", values: [] });
      expect(rows.rows[0]?.tags).toEqual(["x", "y z", 'q"uote']);
      const big = await db.query<{ big: string }>({ text: "SELECT big::text AS big FROM post WHERE title = 'n2'", values: [] });
      expect(big.rows[0]?.big).toBe("{9223372036854775807}");
    });

    it("updates with _set (literal, variable, null) and by primary key", async () => {
      const many = await run(
        `mutation($s: [Int!]) { update_post(where: {tags: {_contains: ["b"]}}, _set: {scores: $s, tags: ["u"]}) { affected_rows returning { title tags scores } } }`,
        { s: [4, 4] },
      );
      expect(many.data.update_post).toEqual({
        affected_rows: 2,
        returning: expect.arrayContaining([
          { title: "p1", tags: ["u"], scores: [4, 4] },
          { title: "p2", tags: ["u"], scores: [4, 4] },
        ]),
      });
      const byPk = await run(`mutation { update_post_by_pk(pk_columns: {id: 3}, _set: {tags: [], ids: null}) { title tags ids } }`);
      expect(byPk.data.update_post_by_pk).toEqual({ title: "p3", tags: [], ids: null });
      const cleared = await run(`mutation { update_post(where: {id: {_eq: 1}}, _set: {tags: null}) { returning { tags } } }`);
      expect(cleared.data.update_post.returning).toEqual([{ tags: null }]);
    });

    it("writes array presets (session variable and static list)", async () => {
      const body = await run(`mutation { insert_post_one(object: {title: "r1"}) { id } }`, undefined, reader);
      expect(body.errors).toBeUndefined();
      const rows = await db.query<{ tags: string[]; scores: number[] }>({
        text: "SELECT tags, scores FROM post WHERE title = 'r1'",
        values: [],
      });
      expect(rows.rows[0]).toEqual({ tags: ["a"], scores: [7, 8] });
    });

    it("refuses wrong element types and null elements", async () => {
      const literal = await run(`mutation { insert_post(objects: [{title: "e", scores: [1, true]}]) { affected_rows } }`);
      expect(literal.errors[0].extensions).toEqual({ path: "$.selectionSet.insert_post.args.objects[0].scores[1]", code: "parse-failed" });
      expect(literal.errors[0].message).toBe(
        "parsing Integer expected for input type: Int failed, expected Number, but encountered Boolean",
      );
      const variable = await run(`mutation($s: [Int!]) { insert_post(objects: [{title: "e", scores: $s}]) { affected_rows } }`, {
        s: [1, 2.5],
      });
      expect(variable.errors[0].extensions.code).toBe("parse-failed");
      const text = await run(`mutation { insert_post(objects: [{title: "e", scores: ["x"]}]) { affected_rows } }`);
      expect(text.errors[0].extensions).toEqual({
        path: "$.selectionSet.insert_post.args.objects[0].scores[0]",
        code: "validation-failed",
      });
      const nullItem = await run(`mutation { insert_post(objects: [{title: "e", tags: ["a", null]}]) { affected_rows } }`);
      expect(nullItem.errors[0].extensions.code).toBe("validation-failed");
      const count = await db.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM post WHERE title = 'e'", values: [] });
      expect(count.rows[0]?.n).toBe(0);
    });
  });
});
